/* The bounded writer and repr() of int, float, str and bytes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "python/values/repr.h"

void ju_w_init(struct ju_writer *w, char *buf, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->buf = buf;
    w->cap = cap;
    w->cut = "...";
    w->reserve = 4;
    buf[0] = '\0';
}

void ju_w_limit(struct ju_writer *w, size_t chars, const char *cut)
{
    size_t reserve = strlen(cut);
    if (chars + reserve + 1 <= w->cap) {
        w->cap = chars + reserve + 1;
        w->cut = cut;
        w->reserve = reserve;
    }
}

void ju_w_put(struct ju_writer *w, const char *s, size_t n)
{
    size_t room;
    if (w->full)
        return;
    room = w->cap - 1 - w->reserve - w->len;
    if (n > room) {
        /* do not cut a UTF-8 sequence */
        while (room > 0 && ((unsigned char)s[room] & 0xc0) == 0x80)
            room--;
        memcpy(w->buf + w->len, s, room);
        w->len += room;
        memcpy(w->buf + w->len, w->cut, strlen(w->cut) + 1);
        w->len += strlen(w->cut);
        w->full = 1;
        w->truncated = 1;
        return;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

void ju_w_str(struct ju_writer *w, const char *s)
{
    ju_w_put(w, s, strlen(s));
}

void ju_w_fmt(struct ju_writer *w, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    ju_w_put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void ju_w_unreadable(struct ju_writer *w, uint64_t addr)
{
    w->unreadable = 1;
    ju_w_fmt(w, "<unreadable 0x%llx>", (unsigned long long)addr);
}

/* --- int --- */

#define DIGIT_BITS 30u
#define MAX_INT_DIGITS 480u /* ~4330 decimal digits: CPython's own str() limit is 4300 */
#define DEC_BASE 1000000000u

int ju_repr_int(struct ju_py_objects *o, struct ju_writer *w, uint64_t obj, int as_bool,
                uint32_t max_digits)
{
    const struct ju_py_value_layout *V = o->V;
    uint32_t digits[MAX_INT_DIGITS], dec[MAX_INT_DIGITS + MAX_INT_DIGITS / 8 + 2];
    char text[MAX_INT_DIGITS * 10 + 2];
    uint64_t word, ndigits;
    size_t ndec = 0, i, j, len;
    int negative, rc;
    if ((rc = ju_read_u64(&o->r->mem, obj + o->head + (V->long_tag != JU_PY_NONE ? V->long_tag
                                                                                 : V->long_size),
                          &word)) < 0)
        return rc;
    if (V->long_tag != JU_PY_NONE) {
        negative = (word & 3) == 2;
        ndigits = word >> 3;
        if ((word & 3) == 3 || ((word & 3) == 1) != (ndigits == 0))
            return JITUNWIND_ECORRUPT;
    } else {
        negative = (int64_t)word < 0;
        ndigits = negative ? (uint64_t)(-(int64_t)word) : word;
    }
    if (as_bool) {
        ju_w_str(w, ndigits ? "True" : "False");
        return 0;
    }
    if (ndigits > MAX_INT_DIGITS) {
        w->truncated = 1;
        ju_w_fmt(w, "<%sint of about %llu decimal digits>", negative ? "negative " : "",
                 (unsigned long long)(ndigits * DIGIT_BITS * 30103ull / 100000ull));
        return 0;
    }
    if (ndigits && (rc = ju_read(&o->r->mem, obj + o->head + V->long_digits, digits,
                                 (size_t)ndigits * 4)) < 0)
        return rc;
    /* base 2**30 to base 10**9, most significant digit first */
    for (i = (size_t)ndigits; i-- > 0;) {
        uint32_t hi = digits[i];
        if (hi >> DIGIT_BITS)
            return JITUNWIND_ECORRUPT;
        for (j = 0; j < ndec; j++) {
            uint64_t z = ((uint64_t)dec[j] << DIGIT_BITS) | hi;
            hi = (uint32_t)(z / DEC_BASE);
            dec[j] = (uint32_t)(z - (uint64_t)hi * DEC_BASE);
        }
        while (hi) {
            dec[ndec++] = hi % DEC_BASE;
            hi /= DEC_BASE;
        }
    }
    len = 0;
    if (ndec == 0)
        text[len++] = '0';
    for (i = ndec; i-- > 0;)
        len += (size_t)snprintf(text + len, sizeof text - len, i + 1 == ndec ? "%u" : "%09u",
                                dec[i]);
    if (negative)
        ju_w_str(w, "-");
    if (max_digits && len > max_digits) {
        ju_w_put(w, text, max_digits);
        ju_w_str(w, "...");
        w->truncated = 1;
    } else {
        ju_w_put(w, text, len);
    }
    return 0;
}

/* --- float: the shortest digits that read back, laid out as repr() does
 * (positional for exponents -5 < e < 16, with ".0" when integral) --- */

int ju_repr_float(struct ju_py_objects *o, struct ju_writer *w, uint64_t obj)
{
    char tmp[40], digits[24], out[64];
    uint64_t bits;
    double v;
    int p, exp10, nd = 0, decpt, i, n = 0, rc;
    char *e;
    if ((rc = ju_read_u64(&o->r->mem, obj + o->head + o->V->float_value, &bits)) < 0)
        return rc;
    memcpy(&v, &bits, 8);
    if (isnan(v)) {
        ju_w_str(w, "nan");
        return 0;
    }
    if (signbit(v))
        out[n++] = '-';
    v = fabs(v);
    if (isinf(v)) {
        out[n] = '\0';
        ju_w_str(w, out);
        ju_w_str(w, "inf");
        return 0;
    }
    for (p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    e = strchr(tmp, 'e');
    exp10 = atoi(e + 1);
    for (i = 0; tmp + i < e; i++)
        if (tmp[i] != '.')
            digits[nd++] = tmp[i];
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    decpt = exp10 + 1;
    if (v == 0)
        decpt = 1;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            n += snprintf(out + n, sizeof out - (size_t)n, "0.%.*s%s", -decpt,
                          "0000", digits);
        } else if (decpt >= nd) {
            n += snprintf(out + n, sizeof out - (size_t)n, "%s%.*s.0", digits, decpt - nd,
                          "0000000000000000");
        } else {
            n += snprintf(out + n, sizeof out - (size_t)n, "%.*s.%s", decpt, digits,
                          digits + decpt);
        }
    } else {
        n += snprintf(out + n, sizeof out - (size_t)n, "%c%s%s%se%c%02d", digits[0],
                      nd > 1 ? "." : "", digits + 1, "", exp10 < 0 ? '-' : '+',
                      exp10 < 0 ? -exp10 : exp10);
    }
    ju_w_str(w, out);
    return 0;
}

/* --- str --- */

/* Non-ASCII code points CPython's repr escapes (not Py_UNICODE_ISPRINTABLE):
 * controls, separators other than space, format characters, surrogates,
 * private use and noncharacters. Unassigned code points (also escaped by
 * CPython) cannot be told without the Unicode database and are shown. */
static int is_printable(uint32_t cp)
{
    static const uint32_t RANGES[][2] = {
        {0x80, 0xa0}, {0xad, 0xad}, {0x600, 0x605}, {0x61c, 0x61c}, {0x6dd, 0x6dd},
        {0x70f, 0x70f}, {0x890, 0x891}, {0x8e2, 0x8e2}, {0x1680, 0x1680}, {0x180e, 0x180e},
        {0x2000, 0x200f}, {0x2028, 0x202f}, {0x205f, 0x2064}, {0x2066, 0x206f},
        {0x3000, 0x3000}, {0xd800, 0xf8ff}, {0xfeff, 0xfeff}, {0xfff9, 0xfffb},
        {0x110bd, 0x110bd}, {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3},
        {0x1d173, 0x1d17a}, {0xe0001, 0xe0001}, {0xe0020, 0xe007f}, {0xf0000, 0x10ffff},
    };
    size_t i;
    if ((cp & 0xfffe) == 0xfffe)
        return 0;
    for (i = 0; i < sizeof RANGES / sizeof RANGES[0]; i++)
        if (cp >= RANGES[i][0] && cp <= RANGES[i][1])
            return 0;
    return 1;
}

struct str_view {
    uint64_t data, length;
    uint32_t kind;
};

static int open_str(struct ju_py_objects *o, uint64_t obj, struct str_view *s)
{
    const struct ju_py_layout *L = o->L;
    uint8_t head[128];
    uint32_t state;
    int rc = 0;
    if (L->str_ascii_size > sizeof head || (rc = ju_read(&o->r->mem, obj, head, L->str_ascii_size)) < 0)
        return rc < 0 ? rc : JITUNWIND_ECORRUPT;
    s->length = ju_py_get(L, JU_PYF_str_length, head, L->str_ascii_size);
    state = (uint32_t)ju_py_get(L, JU_PYF_str_state, head, L->str_ascii_size);
    s->kind = (state >> L->st_kind_shift) & 7;
    if ((int64_t)s->length < 0 || (s->kind != 1 && s->kind != 2 && s->kind != 4))
        return JITUNWIND_ECORRUPT;
    if (L->st_ready_bit != 0xff && !((state >> L->st_ready_bit) & 1))
        return JITUNWIND_EUNSUPPORTED;
    if ((state >> L->st_compact_bit) & 1)
        s->data = obj + (((state >> L->st_ascii_bit) & 1) ? L->str_ascii_size : L->str_compact_size);
    else if ((rc = ju_py_fetch(&o->r->mem, L, obj, JU_PYF_str_legacy_data, &s->data)) < 0)
        return rc;
    return 0;
}

#define CHUNK 128u

/* How many code points from `start` (at most `left`, CHUNK) to read at
 * once without crossing a page: a str running into an unmapped page shows
 * what precedes the page. */
static size_t chunk_len(const struct str_view *s, uint64_t start, uint64_t left)
{
    uint64_t addr = s->data + start * s->kind;
    uint64_t fit = (4096 - (addr & 4095)) / s->kind;
    uint64_t n = left < CHUNK ? left : CHUNK;
    if (fit == 0)
        fit = 1;
    return (size_t)(n < fit ? n : fit);
}

/* Code points [start, start + n) (n <= CHUNK) into cps; EREAD when any is unreadable. */
static int str_chunk(struct ju_py_objects *o, const struct str_view *s, uint64_t start, size_t n,
                     uint32_t *cps)
{
    uint8_t raw[CHUNK * 4];
    size_t i;
    int rc;
    if ((rc = ju_read(&o->r->mem, s->data + start * s->kind, raw, n * s->kind)) < 0)
        return rc;
    for (i = 0; i < n; i++)
        cps[i] = s->kind == 1 ? raw[i] : s->kind == 2 ? ju_load_u16(raw + 2 * i)
                                                      : ju_load_u32(raw + 4 * i);
    return 0;
}

/* The quote CPython picks: ' unless the text has ' and no ". */
static char str_quote(struct ju_py_objects *o, const struct str_view *s)
{
    uint32_t cps[CHUNK];
    uint64_t limit = s->length < JU_PY_MAX_STR_CHARS ? s->length : JU_PY_MAX_STR_CHARS, at;
    int single = 0, dbl = 0;
    for (at = 0; at < limit;) {
        size_t n = chunk_len(s, at, limit - at), i;
        if (str_chunk(o, s, at, n, cps) < 0)
            break; /* nothing is read past a failed page */
        for (i = 0; i < n; i++) {
            single |= cps[i] == '\'';
            dbl |= cps[i] == '"';
        }
        at += n;
    }
    return single && !dbl ? '"' : '\'';
}

void ju_repr_put_char(struct ju_writer *w, uint32_t cp, char quote, int is_bytes)
{
    char buf[12];
    if (cp == (uint32_t)quote || cp == '\\') {
        buf[0] = '\\';
        buf[1] = (char)cp;
        ju_w_put(w, buf, 2);
    } else if (cp == '\t') {
        ju_w_str(w, "\\t");
    } else if (cp == '\n') {
        ju_w_str(w, "\\n");
    } else if (cp == '\r') {
        ju_w_str(w, "\\r");
    } else if (cp < 0x20 || cp == 0x7f || (is_bytes && cp > 0x7f)) {
        ju_w_fmt(w, "\\x%02x", cp);
    } else if (cp < 0x7f) {
        buf[0] = (char)cp;
        ju_w_put(w, buf, 1);
    } else if (is_printable(cp)) {
        ju_w_put(w, buf, ju_py_put_utf8(buf, cp));
    } else if (cp <= 0xff) {
        ju_w_fmt(w, "\\x%02x", cp);
    } else if (cp <= 0xffff) {
        ju_w_fmt(w, "\\u%04x", cp);
    } else {
        ju_w_fmt(w, "\\U%08x", cp);
    }
}

int ju_repr_str(struct ju_py_objects *o, struct ju_writer *w, uint64_t obj, uint32_t max_chars)
{
    struct str_view s;
    uint32_t cps[CHUNK];
    uint64_t shown, at;
    size_t n = 0;
    char quote;
    int rc;
    if ((rc = open_str(o, obj, &s)) < 0)
        return rc;
    shown = max_chars && s.length > max_chars ? max_chars : s.length;
    /* the first characters must read, or the str is unreadable */
    if (shown && (rc = str_chunk(o, &s, 0, chunk_len(&s, 0, shown), cps)) < 0)
        return rc;
    quote = str_quote(o, &s);
    ju_w_put(w, &quote, 1);
    for (at = 0; at < shown && !w->full; at += n) {
        size_t i;
        n = chunk_len(&s, at, shown - at);
        if (str_chunk(o, &s, at, n, cps) < 0) {
            w->unreadable = 1;
            shown = at; /* stop at the failed page: "..." below */
            break;
        }
        for (i = 0; i < n; i++)
            if (cps[i] > 0x10ffff)
                ju_w_str(w, "\\ufffd"), w->unreadable = 1;
            else
                ju_repr_put_char(w, cps[i], quote, 0);
    }
    if (shown < s.length) {
        ju_w_str(w, "...");
        w->truncated = 1;
    }
    ju_w_put(w, &quote, 1);
    return 0;
}

int ju_repr_bytes(struct ju_py_objects *o, struct ju_writer *w, uint64_t obj, uint32_t max_chars)
{
    uint8_t data[4096];
    size_t len, i, limit = max_chars && max_chars < sizeof data ? max_chars : sizeof data;
    int truncated, rc, single = 0, dbl = 0;
    char quote;
    if ((rc = ju_py_read_bytes(o->r, obj, data, limit, &len, &truncated)) < 0)
        return rc;
    for (i = 0; i < len; i++) {
        single |= data[i] == '\'';
        dbl |= data[i] == '"';
    }
    quote = single && !dbl ? '"' : '\'';
    ju_w_str(w, "b");
    ju_w_put(w, &quote, 1);
    for (i = 0; i < len && !w->full; i++)
        ju_repr_put_char(w, data[i], quote, 1);
    if (truncated) {
        ju_w_str(w, "...");
        w->truncated = 1;
    }
    ju_w_put(w, &quote, 1);
    return 0;
}
