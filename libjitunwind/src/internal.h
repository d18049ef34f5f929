/* What every floor of the library needs: errors and logging, bounded
 * reads of target memory, growable arrays. A floor's own contracts are in
 * its headers (elf/elf.h, unwind/cfi.h, ranges/registry_loaders.h, ...),
 * included only where they are used. Not installed. */
#ifndef JITUNWIND_INTERNAL_H
#define JITUNWIND_INTERNAL_H

#include "base/array.h"
#include "base/read.h"
#include "base/status.h"

#endif
