/* What the perf map and jitdump loaders share (discovery/perfmap.c). */
#ifndef JITUNWIND_DISCOVERY_PERF_FILES_H
#define JITUNWIND_DISCOVERY_PERF_FILES_H

#include "base/status.h"

/* The user a perf map (perf-PID.map) or jitdump file (jit-PID.dump) belongs
 * to, when its name says which live process wrote it: that process's
 * owner, or -1. */
JU_HIDDEN long ju_perf_file_owner(const char *path);

#endif
