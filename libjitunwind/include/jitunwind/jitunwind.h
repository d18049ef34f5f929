/* libjitunwind: unwind native stacks through JIT code and perf trampolines,
 * and decode CPython's Python frames out of another process.
 * Umbrella header; see docs/design.md. */
#ifndef JITUNWIND_H
#define JITUNWIND_H

#include "jitunwind/version.h"
#include "jitunwind/export.h"
#include "jitunwind/status.h"
#include "jitunwind/memory.h"
#include "jitunwind/registry.h"
#include "jitunwind/unwind.h"
#include "jitunwind/jit.h"
#include "jitunwind/python.h"
#include "jitunwind/mixed.h"
#include "jitunwind/readers.h"
#include "jitunwind/modules.h"
#include "jitunwind/dwarf.h"
#include "jitunwind/debug_files.h"
#include "jitunwind/image.h"
#include "jitunwind/text.h"

#endif
