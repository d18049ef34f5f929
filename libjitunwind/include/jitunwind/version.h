/* The version of the headers a program was compiled with; jitunwind_version()
 * (status.h) gives the library's at run time. The project's one version:
 * CMakeLists.txt reads it from here. */
#ifndef JITUNWIND_VERSION_H
#define JITUNWIND_VERSION_H

#define JITUNWIND_VERSION_MAJOR 0
#define JITUNWIND_VERSION_MINOR 1
#define JITUNWIND_VERSION_PATCH 0

/* MAJOR, MINOR and PATCH in one number, ordered as the versions are. */
#define JITUNWIND_VERSION_NUMBER(major, minor, patch) \
    (((major) << 16) | ((minor) << 8) | (patch))
#define JITUNWIND_VERSION                                                        \
    JITUNWIND_VERSION_NUMBER(JITUNWIND_VERSION_MAJOR, JITUNWIND_VERSION_MINOR, \
                             JITUNWIND_VERSION_PATCH)

#endif
