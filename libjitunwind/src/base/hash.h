/* The library's one byte-string hash (hash.c). Not installed. */
#ifndef JITUNWIND_BASE_HASH_H
#define JITUNWIND_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* FNV-1a (64-bit) of len bytes. */
JU_HIDDEN uint64_t ju_fnv1a(const void *data, size_t len);

#endif
