/* Status strings, error detail and the log callback. */
#include <stdio.h>

#include "internal.h"
#include "base/status.h"

#ifndef JITUNWIND_VERSION_STRING
#define JITUNWIND_VERSION_STRING "0.0.0"
#endif

static jitunwind_log_fn log_fn;
static void *log_arg;
static _Thread_local struct jitunwind_error last_error; /* of this thread's last constructor */

JITUNWIND_API const char *jitunwind_strerror(int status)
{
    switch (status) {
    case JITUNWIND_OK: return "success";
    case JITUNWIND_EINVAL: return "invalid argument";
    case JITUNWIND_ENOMEM: return "out of memory";
    case JITUNWIND_EREAD: return "target memory unreadable";
    case JITUNWIND_EOVERLAP: return "range overlaps a registered range";
    case JITUNWIND_ENOTFOUND: return "not found";
    case JITUNWIND_ECORRUPT: return "target data is corrupt";
    case JITUNWIND_ELOOP: return "cycle in target data";
    case JITUNWIND_ELIMIT: return "limit reached";
    case JITUNWIND_EVERSION: return "unsupported version";
    case JITUNWIND_EBUSY: return "target data kept changing";
    case JITUNWIND_EIO: return "I/O error";
    case JITUNWIND_EELF: return "ELF error";
    case JITUNWIND_EUNSUPPORTED: return "not supported";
    default: return "unknown status";
    }
}

JITUNWIND_API const char *jitunwind_version_string(void)
{
    return JITUNWIND_VERSION_STRING;
}

JITUNWIND_API unsigned jitunwind_version(void)
{
    return JITUNWIND_VERSION;
}

JITUNWIND_API void jitunwind_set_log(jitunwind_log_fn fn, void *arg)
{
    log_fn = fn;
    log_arg = arg;
}

static void vlog(int level, const char *fmt, va_list ap)
{
    char buf[512];
    if (!log_fn)
        return;
    vsnprintf(buf, sizeof buf, fmt, ap);
    log_fn(log_arg, level, buf);
}

void ju_log(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

int ju_fail(struct jitunwind_error *err, int code, uint64_t address, const char *fmt, ...)
{
    va_list ap;
    if (err) {
        err->code = code;
        err->address = address;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        ju_log(JITUNWIND_LOG_DEBUG, "%s", err->message);
    }
    return code;
}

JITUNWIND_API const struct jitunwind_error *jitunwind_last_error(void)
{
    return &last_error;
}

int ju_constructed(void **out, void *made, int rc, const struct jitunwind_error *detail)
{
    if (rc >= 0) {
        *out = made;
        ju_clear_error(&last_error);
        return rc;
    }
    *out = NULL;
    if (detail && detail->code == rc) {
        last_error = *detail;
    } else {
        last_error.code = rc;
        last_error.address = 0;
        ju_strlcpy(last_error.message, jitunwind_strerror(rc), sizeof last_error.message);
    }
    return rc;
}

void ju_clear_error(struct jitunwind_error *err)
{
    if (err) {
        err->code = 0;
        err->address = 0;
        err->message[0] = '\0';
    }
}

int ju_strlcpy(char *dst, const char *src, size_t size)
{
    size_t n;
    if (size == 0)
        return 1;
    n = strlen(src);
    if (n >= size) {
        memcpy(dst, src, size - 1);
        dst[size - 1] = '\0';
        return 1;
    }
    memcpy(dst, src, n + 1);
    return 0;
}
