/* libjitunwind: unwind native stacks through JIT code and perf trampolines,
 * and decode CPython's Python frames out of another process.
 * Umbrella header; see docs/design.md.
 *
 * Threads, one rule for the whole API: a handle (jitunwind_registry,
 * _modules, _pyreader, _py_chains, _dwarf_types, the readers of readers.h,
 * a jitunwind_cursor) is used by one thread at a time: calls on one handle,
 * its queries and lookups included, must not overlap, and what a call
 * returns that points into a handle is valid until the next call that
 * changes the handle. Different handles may be used from different threads
 * at once, also when one was made from another (a cursor over a registry
 * is a use of both). A jitunwind_memory's callbacks are called only from
 * the thread that called the library. Functions without a handle are safe
 * from any thread, except where their header says otherwise
 * (jitunwind_set_log). The in-process side of jit.h (registering this
 * process's own code) is thread-safe. Nothing is async-signal-safe. Each
 * handle's header repeats the line that applies to it. Comments name
 * parameters in CAPS or `quotes`, say what may be NULL, the return
 * convention (0 or a count, else a negative jitunwind_status) and the
 * lifetime of what is returned. */
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
#include "jitunwind/native_variables.h"
#include "jitunwind/dwarf.h"
#include "jitunwind/debug_files.h"
#include "jitunwind/image.h"
#include "jitunwind/text.h"

#endif
