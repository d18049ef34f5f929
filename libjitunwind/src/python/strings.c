/* str and bytes objects, decoded from target memory with every size bounded. */
#include "python/pyreader.h"

size_t ju_py_put_utf8(char *dst, uint32_t cp)
{
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xc0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xe0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    dst[0] = (char)(0xf0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    dst[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

int ju_py_read_str(const struct jitunwind_pyreader *r, uint64_t addr, char *buf, size_t size,
                   int *truncated)
{
    const struct ju_py_layout *L = r->layout;
    uint8_t head[JU_PY_STR_COPY], raw[JU_PY_MAX_STR_CHARS * 4];
    uint64_t length, data;
    uint32_t state, kind;
    size_t n, i, out = 0;
    int rc;
    *truncated = 0;
    if (size == 0)
        return JITUNWIND_EINVAL;
    buf[0] = '\0';
    if (addr == 0)
        return JITUNWIND_ECORRUPT;
    if ((rc = ju_read(&r->mem, addr, head, L->str_ascii_size)) < 0)
        return rc;
    length = ju_py_get(L, JU_PYF_str_length, head, L->str_ascii_size);
    state = (uint32_t)ju_py_get(L, JU_PYF_str_state, head, L->str_ascii_size);
    kind = (state >> L->st_kind_shift) & 7;
    if ((int64_t)length < 0 || (kind != 1 && kind != 2 && kind != 4))
        return JITUNWIND_ECORRUPT;
    if (L->st_ready_bit != 0xff && !((state >> L->st_ready_bit) & 1))
        return JITUNWIND_EUNSUPPORTED; /* 3.11 legacy string not made ready: data only in wstr */
    if ((state >> L->st_compact_bit) & 1)
        data = addr + (((state >> L->st_ascii_bit) & 1) ? L->str_ascii_size : L->str_compact_size);
    else if ((rc = ju_py_fetch(&r->mem, L, addr, JU_PYF_str_legacy_data, &data)) < 0)
        return rc;
    n = (size_t)(length < JU_PY_MAX_STR_CHARS ? length : JU_PY_MAX_STR_CHARS);
    if (n < length)
        *truncated = 1;
    if (n && (rc = ju_read(&r->mem, data, raw, n * kind)) < 0)
        return rc;
    for (i = 0; i < n; i++) {
        uint32_t cp = kind == 1 ? raw[i] : kind == 2 ? ju_load_u16(raw + 2 * i)
                                                     : ju_load_u32(raw + 4 * i);
        char enc[4];
        size_t len;
        if (cp > 0x10ffff)
            return JITUNWIND_ECORRUPT;
        len = ju_py_put_utf8(enc, cp);
        if (out + len >= size) {
            *truncated = 1;
            break;
        }
        memcpy(buf + out, enc, len);
        out += len;
    }
    buf[out] = '\0';
    return 0;
}

int ju_py_read_bytes(const struct jitunwind_pyreader *r, uint64_t addr, uint8_t *dst, size_t cap,
                     size_t *len, int *truncated)
{
    const struct ju_py_layout *L = r->layout;
    uint64_t size;
    int rc;
    *len = 0;
    *truncated = 0;
    if (addr == 0)
        return JITUNWIND_ECORRUPT;
    if ((rc = ju_py_fetch(&r->mem, L, addr, JU_PYF_bytes_size, &size)) < 0)
        return rc;
    if ((int64_t)size < 0)
        return JITUNWIND_ECORRUPT;
    if (size > cap) {
        size = cap;
        *truncated = 1;
    }
    if (size && (rc = ju_read(&r->mem, addr + L->bytes_sval, dst, (size_t)size)) < 0)
        return rc;
    *len = (size_t)size;
    return 0;
}
