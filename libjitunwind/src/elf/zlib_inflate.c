/* One zlib stream inflated whole into a buffer of the size it must fill:
 * the body of an SHF_COMPRESSED/ELFCOMPRESS_ZLIB section. libdeflate
 * decodes about twice as fast as zlib's inflate, which libelf uses (on
 * Debian's python3.11 debug file: 11 MB of .debug_info in 20 ms against
 * 38 ms). Built without libdeflate, nothing is inflated here and the
 * caller leaves the section to libelf. */
#include "internal.h"
#include "elf/elf.h"

#ifdef JITUNWIND_HAVE_LIBDEFLATE
#include <libdeflate.h>

int ju_zlib_inflate_available(void)
{
    return 1;
}

int ju_zlib_inflate(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_size)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    enum libdeflate_result rc;
    if (!d)
        return JITUNWIND_ENOMEM;
    /* No actual-size pointer: anything but exactly out_size bytes, and a
     * stream that does not end with its checksum, is an error. */
    rc = libdeflate_zlib_decompress(d, in, in_size, out, out_size, NULL);
    libdeflate_free_decompressor(d);
    return rc == LIBDEFLATE_SUCCESS ? 0 : JITUNWIND_ECORRUPT;
}

#else

int ju_zlib_inflate_available(void)
{
    return 0;
}

int ju_zlib_inflate(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_size)
{
    (void)in, (void)in_size, (void)out, (void)out_size;
    return JITUNWIND_EUNSUPPORTED;
}

#endif
