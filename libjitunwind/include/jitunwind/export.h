/* Symbol visibility: the library is built with -fvisibility=hidden and only
 * functions marked JITUNWIND_API are exported. */
#ifndef JITUNWIND_EXPORT_H
#define JITUNWIND_EXPORT_H

#if defined(JITUNWIND_BUILDING) && defined(__GNUC__)
#define JITUNWIND_API __attribute__((visibility("default")))
#else
#define JITUNWIND_API
#endif

#endif
