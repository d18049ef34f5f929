/* The memory-reader contract.
 *
 * The library never dereferences a target address. Every byte of target
 * memory it looks at comes through a caller-supplied jitunwind_memory:
 *
 *   read(arg, addr, dst, len)
 *     Copy exactly `len` bytes at target address `addr` into `dst` and return
 *     0, or return a negative jitunwind_status (normally JITUNWIND_EREAD) and
 *     leave `dst` unspecified. Reads are all-or-nothing: a read that would
 *     cross into an unmapped page fails as a whole. `len` is at most
 *     JITUNWIND_READ_MAX. `addr + len` may wrap; the callback must fail such
 *     reads rather than wrap. The callback must not longjmp, throw or call back
 *     into the library. It may be called many times per operation and from
 *     the thread that called the library only.
 *
 *   write(arg, addr, src, len)   (optional; NULL: the target is read-only)
 *     Copy exactly `len` bytes from `src` to target address `addr` and return
 *     0, or return a negative jitunwind_status. The library calls it only
 *     where a caller asked for a write by name (jitunwind_py_chains_mark_frames:
 *     one pointer per thread per sample); nothing else ever writes. Readers of
 *     dead targets (cores, images) have none.
 *
 * `size` is sizeof(struct jitunwind_memory) as the caller was compiled: the
 * library reads only that many bytes, so a caller built against an older,
 * smaller version keeps working (the members it lacks read as 0), and one
 * built against a newer version is refused (EINVAL) if it sets a member
 * this library does not know. A size below the first version's (`read` and
 * `arg`) is refused.
 *
 * The struct is copied by value into the handles that use it; `arg` must stay
 * valid for as long as those handles do. Zero it before filling it in: a
 * member left unset must read as NULL or 0.
 *
 * Ready-made readers (a live process, an in-memory image, a core file) are in
 * readers.h. */
#ifndef JITUNWIND_MEMORY_H
#define JITUNWIND_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JITUNWIND_READ_MAX (16u * 1024u * 1024u)

typedef int (*jitunwind_read_fn)(void *arg, uint64_t addr, void *dst, size_t len);
typedef int (*jitunwind_write_fn)(void *arg, uint64_t addr, const void *src, size_t len);

struct jitunwind_memory {
    size_t size; /* sizeof(struct jitunwind_memory): see above */
    jitunwind_read_fn read;
    void *arg;
    /* AArch64: the bits of a code address that hold a pointer-authentication
     * code in this target (its NT_ARM_PAC_MASK, gdb's $pauth_cmask), cleared
     * from saved return addresses. 0 means the architecture's default (48-bit
     * user addresses: bits 48-63). Ignored on x86-64. */
    uint64_t pac_mask;
    /* Writes into the target, or NULL (see above). */
    jitunwind_write_fn write;
};

#ifdef __cplusplus
}
#endif

#endif
