/* Errors, the log callback and the constructors' common end (status.c):
 * what every floor uses to fail and to say why. Not installed. */
#ifndef JITUNWIND_BASE_STATUS_H
#define JITUNWIND_BASE_STATUS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "jitunwind/jitunwind.h"

#define JU_HIDDEN __attribute__((visibility("hidden")))
#define JU_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Record a failure in *err and return `code` (so callers can
 * `return ju_fail(...)`). The message is also sent to the log callback at
 * DEBUG level. err may be NULL. */
JU_HIDDEN int ju_fail(struct jitunwind_error *err, int code, uint64_t address,
                      const char *fmt, ...) JU_PRINTF(4, 5);
JU_HIDDEN void ju_clear_error(struct jitunwind_error *err);
/* The end of every constructor (status.h, jitunwind_last_error): on
 * success (rc >= 0) stores `made` in *out and clears the thread's last
 * error; on failure stores NULL and keeps `detail` (when it holds this
 * failure; otherwise the status's text) as the last error. The caller
 * frees whatever it built before calling this. Returns rc. */
JU_HIDDEN int ju_constructed(void **out, void *made, int rc, const struct jitunwind_error *detail);
JU_HIDDEN void ju_log(int level, const char *fmt, ...) JU_PRINTF(2, 3);

/* Copy a string into a fixed buffer, always NUL-terminating; returns 1 if it
 * was truncated. */
JU_HIDDEN int ju_strlcpy(char *dst, const char *src, size_t size);

#endif
