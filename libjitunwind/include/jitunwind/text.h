/* Printing text a target controls (function, file, thread and range names). */
#ifndef JITUNWIND_TEXT_H
#define JITUNWIND_TEXT_H

#include <stddef.h>

#include "jitunwind/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TEXT (NUL-terminated bytes, UTF-8 expected) made safe for a terminal:
 * control characters (C0, DEL, C1) and the other characters Python's repr()
 * would not print are written as repr() escapes (\n, \t, \r, \xNN, \uNNNN,
 * \UNNNNNNNN), each byte that is not valid UTF-8 as \xNN; everything else,
 * backslashes included, is kept. At most 4 bytes are written per byte of
 * TEXT. Writes at most SIZE bytes to BUF (NUL-terminated when SIZE > 0,
 * never cutting an escape or a character) and returns the full length, as
 * snprintf (BUF NULL: the length only); TEXT NULL is "". */
JITUNWIND_API size_t jitunwind_text_escape(const char *text, char *buf, size_t size);

/* Returns the code point of the UTF-8 sequence at TEXT (NUL-terminated; 0
 * at its end), *LEN set to its bytes; or -1 with *LEN 1 when the byte there
 * starts no valid sequence (overlong, a surrogate, past U+10FFFF, or cut
 * short), or when TEXT is NULL. LEN may be NULL. */
JITUNWIND_API long jitunwind_utf8_char(const char *text, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
