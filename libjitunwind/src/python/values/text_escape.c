/* jitunwind_text_escape: target text for a terminal, by the value
 * renderer's rule for str reprs (ju_repr_put_char). */
#include <string.h>

#include "jitunwind/text.h"
#include "python/values/repr.h"

JITUNWIND_API long jitunwind_utf8_char(const char *text, size_t *len)
{
    const unsigned char *s = (const unsigned char *)text;
    static const long MIN[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t n, i, ignored;
    long cp;
    if (!len)
        len = &ignored;
    *len = 1;
    if (!s)
        return -1;
    if (s[0] < 0x80)
        return s[0];
    if ((s[0] & 0xe0) == 0xc0)
        n = 2, cp = s[0] & 0x1f;
    else if ((s[0] & 0xf0) == 0xe0)
        n = 3, cp = s[0] & 0x0f;
    else if ((s[0] & 0xf8) == 0xf0)
        n = 4, cp = s[0] & 0x07;
    else
        return -1;
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
            return -1;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < MIN[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    *len = n;
    return cp;
}

JITUNWIND_API size_t jitunwind_text_escape(const char *text, char *buf, size_t size)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    size_t total = 0, used = 0, n;
    int cut = 0;
    if (!buf)
        size = 0; /* only the length is asked for */
    while (*s) {
        char piece[24];
        struct ju_writer w;
        long cp = jitunwind_utf8_char((const char *)s, &n);
        ju_w_init(&w, piece, sizeof piece);
        if (cp < 0)
            ju_w_fmt(&w, "\\x%02x", *s);
        else if (cp == '\\')
            ju_w_put(&w, "\\", 1); /* kept: a name is not inside quotes */
        else
            ju_repr_put_char(&w, (uint32_t)cp, '\0', 0);
        total += w.len;
        if (!cut && size && used + w.len < size) {
            memcpy(buf + used, piece, w.len);
            used += w.len;
        } else {
            cut = 1;
        }
        s += n;
    }
    if (size)
        buf[used] = '\0';
    return total;
}
