/* The 3.11+ location table (co_linetable), per CPython's
 * InternalDocs/locations.md: entries of 1-8 code units, each starting with a
 * byte that has bit 7 set. Pure and bounded by `len`.
 *
 * A "no location" entry (code 15) yields -1 for its range and leaves the
 * running line unchanged, as CPython's PyCode_Addr2Line does. */
#include "python/pyreader.h"

struct cursor {
    const uint8_t *p;
    size_t len, i;
    int bad;
};

static unsigned next_byte(struct cursor *c)
{
    if (c->i >= c->len) {
        c->bad = 1;
        return 0;
    }
    return c->p[c->i++];
}

static uint64_t varint(struct cursor *c)
{
    unsigned b = next_byte(c);
    uint64_t v = b & 63;
    unsigned shift = 0;
    while ((b & 64) && !c->bad) {
        b = next_byte(c);
        shift += 6;
        if (shift > 60) {
            c->bad = 1;
            break;
        }
        v |= (uint64_t)(b & 63) << shift;
    }
    return v;
}

static int64_t svarint(struct cursor *c)
{
    uint64_t u = varint(c);
    return (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
}

JITUNWIND_API int jitunwind_py_linetable_line(const uint8_t *table, size_t len, int first_line,
                                              int lasti_units)
{
    struct cursor c = {table, len, 0, 0};
    int64_t line = first_line, addr = 0;
    if (!table || lasti_units < 0)
        return -1;
    while (c.i < c.len) {
        unsigned first = next_byte(&c), code, units;
        int64_t delta = 0;
        if (!(first & 0x80))
            return -1; /* not at an entry start: corrupt */
        code = (first >> 3) & 15;
        units = (first & 7) + 1;
        switch (code) {
        case 15:
            break;
        case 14:
            delta = svarint(&c);
            (void)varint(&c);
            (void)varint(&c);
            (void)varint(&c);
            break;
        case 13:
            delta = svarint(&c);
            break;
        case 12: case 11: case 10:
            delta = (int64_t)code - 10;
            (void)next_byte(&c);
            (void)next_byte(&c);
            break;
        default:
            (void)next_byte(&c);
            break;
        }
        if (c.bad || delta < INT32_MIN || delta > INT32_MAX)
            return -1; /* cut short, or a jump no real table makes (line would overflow) */
        line += delta;
        if (line < INT32_MIN || line > INT32_MAX)
            return -1;
        if (lasti_units < addr + units)
            return code == 15 ? -1 : (int)line;
        addr += units;
    }
    return -1;
}
