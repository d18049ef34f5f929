/* Text output of the value renderer: a bounded writer into the caller's
 * buffer, and the repr() of scalar objects (int, float, str, bytes) as
 * CPython spells them. */
#ifndef JITUNWIND_PY_REPR_H
#define JITUNWIND_PY_REPR_H

#include "python/values/objects.h"

/* Writes into buf[0, cap), always NUL-terminated; once full, `full` is set
 * and the last bytes say what `cut` says (`reserve` bytes are kept for it). */
struct ju_writer {
    char *buf;
    size_t cap, len;
    int full;
    int truncated;  /* anything was cut (a limit, or the buffer) */
    int unreadable; /* some pointer could not be read */
    const char *cut; /* what marks a cut: "..." */
    size_t reserve;  /* bytes kept for it */
};

JU_HIDDEN void ju_w_init(struct ju_writer *w, char *buf, size_t cap);
/* Cut the text at `chars` bytes (when the buffer holds that many), marked
 * with `cut` instead of "...". */
JU_HIDDEN void ju_w_limit(struct ju_writer *w, size_t chars, const char *cut);
JU_HIDDEN void ju_w_put(struct ju_writer *w, const char *s, size_t n);
JU_HIDDEN void ju_w_str(struct ju_writer *w, const char *s);
JU_HIDDEN void ju_w_fmt(struct ju_writer *w, const char *fmt, ...) JU_PRINTF(2, 3);
/* "<unreadable 0x...>", and mark the output. */
JU_HIDDEN void ju_w_unreadable(struct ju_writer *w, uint64_t addr);

/* repr() of the int (or bool: True/False) at obj; more than max_digits
 * digits are cut, followed by "...". A negative status (nothing written)
 * when it cannot be read. */
JU_HIDDEN int ju_repr_int(struct ju_py_objects *o, struct ju_writer *w, uint64_t obj,
                          int as_bool, uint32_t max_digits);
/* repr() of a method-wrapper (a slot wrapper bound to an object):
 * `<method-wrapper 'NAME' of TYPE object at 0x...>`, with "remote " before
 * the address in libpython's style. A negative status when unreadable. */
JU_HIDDEN int ju_repr_method_wrapper(struct ju_py_objects *o, struct ju_writer *w, uint64_t obj,
                                     int libpython);
JU_HIDDEN int ju_repr_float(struct ju_py_objects *o, struct ju_writer *w, uint64_t obj);
/* repr() of a str: at most max_chars characters, then "..." before the
 * closing quote; the quote is chosen from the first JU_PY_MAX_STR_CHARS
 * characters. Non-ASCII characters are shown as themselves (UTF-8) unless
 * CPython would escape them; printability is approximated (docs/values.md). */
JU_HIDDEN int ju_repr_str(struct ju_py_objects *o, struct ju_writer *w, uint64_t obj,
                          uint32_t max_chars);
/* One character of a str (is_bytes 0) or bytes (1) repr inside `quote`:
 * the quote and backslash escaped, controls as \t \n \r or \xNN, other
 * characters CPython would not print as \xNN, \uNNNN or \UNNNNNNNN. The
 * one escaping rule of the library (jitunwind_text_escape uses it too). */
JU_HIDDEN void ju_repr_put_char(struct ju_writer *w, uint32_t cp, char quote, int is_bytes);
JU_HIDDEN int ju_repr_bytes(struct ju_py_objects *o, struct ju_writer *w, uint64_t obj,
                            uint32_t max_chars);

#endif
