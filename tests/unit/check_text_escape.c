/* jitunwind_text_escape: target text made safe for a terminal by the value
 * renderer's rule, and jitunwind_utf8_char under it. */
#include <string.h>

#include "jitunwind/text.h"
#include "suite.h"

static const char *shown(const char *text)
{
    static char buf[256];
    size_t n = jitunwind_text_escape(text, buf, sizeof buf);
    ck_assert_uint_eq(n, strlen(buf));
    return buf;
}

START_TEST(controls_and_invalid_bytes_are_escaped)
{
    ck_assert_str_eq(shown("plain name.py"), "plain name.py");
    ck_assert_str_eq(shown("caf\xc3\xa9 \\ kept"), "caf\xc3\xa9 \\ kept");
    ck_assert_str_eq(shown("\x1b]0;title\x07"), "\\x1b]0;title\\x07");
    ck_assert_str_eq(shown("a\nb\tc\rd\x7f"), "a\\nb\\tc\\rd\\x7f");
    ck_assert_str_eq(shown("c1 \xc2\x9b csi"), "c1 \\x9b csi");             /* U+009B */
    ck_assert_str_eq(shown("bidi \xe2\x80\xae"), "bidi \\u202e");            /* U+202E */
    ck_assert_str_eq(shown("bad \xff \xc3( \xc0\xaf"), "bad \\xff \\xc3( \\xc0\\xaf");
    ck_assert_str_eq(shown("surrogate \xed\xa0\x80"), "surrogate \\xed\\xa0\\x80");
    ck_assert_str_eq(shown("cut \xe2\x82"), "cut \\xe2\\x82");
    ck_assert_str_eq(shown(NULL), "");
}
END_TEST

START_TEST(a_short_buffer_cuts_between_escapes)
{
    char buf[8];
    /* the escape does not fit whole after "ab" in 6 bytes: not cut into */
    ck_assert_uint_eq(jitunwind_text_escape("ab\x1b" "cdef", buf, 6), 10);
    ck_assert_str_eq(buf, "ab");
    ck_assert_uint_eq(jitunwind_text_escape("ab\x1b" "cdef", buf, sizeof buf), 10);
    ck_assert_str_eq(buf, "ab\\x1bc");
    ck_assert_uint_eq(jitunwind_text_escape("\x1b", NULL, 0), 4);
    ck_assert_uint_eq(jitunwind_text_escape("\x1b", NULL, 99), 4); /* no buffer: the length */
}
END_TEST

START_TEST(utf8_char)
{
    size_t n;
    ck_assert_int_eq(jitunwind_utf8_char("A", &n), 'A');
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(jitunwind_utf8_char("\xf0\x9f\x98\x80", &n), 0x1f600);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(jitunwind_utf8_char("\xe0\x80\x80", &n), -1); /* overlong */
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(jitunwind_utf8_char("\xf4\x90\x80\x80", &n), -1); /* past U+10FFFF */
    ck_assert_int_eq(jitunwind_utf8_char(NULL, &n), -1);
    ck_assert_int_eq(jitunwind_utf8_char("x", NULL), 'x');
}
END_TEST

int main(void)
{
    return ju_run_tests("text_escape", JU_TESTS(controls_and_invalid_bytes_are_escaped,
                                                a_short_buffer_cuts_between_escapes,
                                                utf8_char));
}
