/* Status codes, error detail and logging.
 *
 * Every fallible function returns 0 (JITUNWIND_OK) or a negative
 * jitunwind_status. Functions that produce frames return 1 for "a frame",
 * 0 for "clean end" and a negative status for errors. The library never
 * prints; diagnostics go to an optional log callback. */
#ifndef JITUNWIND_STATUS_H
#define JITUNWIND_STATUS_H

#include <stdint.h>

#include "jitunwind/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jitunwind_status {
    JITUNWIND_OK = 0,
    JITUNWIND_EINVAL = -1,       /* an argument is invalid (NULL, empty range, unknown enum) */
    JITUNWIND_ENOMEM = -2,       /* host allocation failed */
    JITUNWIND_EREAD = -3,        /* target memory could not be read */
    JITUNWIND_EOVERLAP = -4,     /* range overlaps a registered range */
    JITUNWIND_ENOTFOUND = -5,    /* no such range, symbol, file or object */
    JITUNWIND_ECORRUPT = -6,     /* target data failed a sanity check */
    JITUNWIND_ELOOP = -7,        /* a cycle was found in target data */
    JITUNWIND_ELIMIT = -8,       /* a bound was reached (depth, count, length) */
    JITUNWIND_EVERSION = -9,     /* unsupported format or interpreter version */
    JITUNWIND_EBUSY = -10,       /* target data kept changing during a read */
    JITUNWIND_EIO = -11,         /* a host file or OS call failed */
    JITUNWIND_EELF = -12,        /* an ELF file could not be parsed */
    JITUNWIND_EUNSUPPORTED = -13 /* not supported for this architecture or input */
} jitunwind_status;

/* A static, never-NULL English description of STATUS; an unknown code
 * gives "unknown status". */
JITUNWIND_API const char *jitunwind_strerror(int status);

/* The detail of the last failure of a handle (registry, pyreader, ...).
 * `address` is the target address involved, or 0. `message` is one line,
 * NUL-terminated, and empty when code == 0. */
#define JITUNWIND_ERROR_MESSAGE_MAX 384
struct jitunwind_error {
    int code;
    uint64_t address;
    char message[JITUNWIND_ERROR_MESSAGE_MAX];
};

enum jitunwind_log_level {
    JITUNWIND_LOG_DEBUG = 0,
    JITUNWIND_LOG_INFO = 1,
    JITUNWIND_LOG_WARNING = 2
};

/* A log callback: LEVEL is an enum jitunwind_log_level, MESSAGE one line,
 * valid only during the call. */
typedef void (*jitunwind_log_fn)(void *arg, int level, const char *message);
/* Send the library's diagnostics to FN, called with ARG synchronously from
 * the thread that called into the library; FN NULL turns logging off (the
 * default). ARG is kept as given and must stay valid while FN is set.
 * Threads: not safe against concurrent library calls (set it before using
 * the library from several threads). */
JITUNWIND_API void jitunwind_set_log(jitunwind_log_fn fn, void *arg);

/* Failure contract of every constructor (jitunwind_*_new, _open): on
 * failure *out is NULL (nothing to free) and the detail is kept for the
 * calling thread until its next constructor call, here; a constructor that
 * succeeds clears it. Never NULL. The *_last_error(NULL) of each handle
 * type (a constructor that failed gave NULL) returns the same. */
JITUNWIND_API const struct jitunwind_error *jitunwind_last_error(void);

/* Returns the library's version as "MAJOR.MINOR.PATCH": a static string,
 * never NULL. */
JITUNWIND_API const char *jitunwind_version_string(void);

/* Returns the library's version as JITUNWIND_VERSION_NUMBER(MAJOR, MINOR,
 * PATCH) (version.h), to compare with the JITUNWIND_VERSION a program was
 * built with: the same major version keeps the API and ABI. */
JITUNWIND_API unsigned jitunwind_version(void);

#ifdef __cplusplus
}
#endif

#endif
