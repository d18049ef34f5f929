# A Debian package of the whole product: `cpack -G DEB` in the build folder
# (tests/install/test_deb.sh builds, lints and installs it into a scratch root).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME jitunwind)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "libjitunwind developers <jitunwind@localhost.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "unwind through JIT code and perf trampolines; mixed Python/native backtraces")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"libjitunwind walks native stacks through CPython's JIT code and perf
trampolines, and decodes CPython 3.11 to 3.16 frames out of a live process
or a core. This package holds the C library (shared and static), its
headers, pkg-config and CMake files, the GDB and LLDB plugins, and a
system-wide gdb hook that loads the GDB plugin when gdb sees a CPython.")
set(CPACK_DEBIAN_PACKAGE_SECTION debug)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= 3.11)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gdb, lldb")
# The package installs where the build was configured to (paths such as the
# gdb hook's are fixed at configure time): configure with
# -DCMAKE_INSTALL_PREFIX=/usr for a package that Debian's gdb picks up.
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# What Debian policy wants in every package: the copyright file and a
# compressed changelog under /usr/share/doc/<package>.
set(_doc ${CMAKE_CURRENT_BINARY_DIR}/debian-doc)
file(MAKE_DIRECTORY ${_doc})
file(COPY_FILE ${CMAKE_CURRENT_LIST_DIR}/debian/copyright ${_doc}/copyright ONLY_IF_DIFFERENT)
string(TIMESTAMP _date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${_doc}/changelog
"jitunwind (${PROJECT_VERSION}) unstable; urgency=medium

  * Package built from the libjitunwind source tree.

 -- ${CPACK_PACKAGE_CONTACT}  ${_date}
")
add_custom_command(OUTPUT ${_doc}/changelog.gz
  COMMAND gzip -9nkf ${_doc}/changelog DEPENDS ${_doc}/changelog)
add_custom_target(jitunwind_debian_doc ALL DEPENDS ${_doc}/changelog.gz)
if(NOT SKBUILD)
  install(FILES ${_doc}/copyright ${_doc}/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/jitunwind)
endif()
# Files under /etc are the administrator's: dpkg keeps their edits.
if(DEFINED JITUNWIND_GDBINIT_DIR AND IS_ABSOLUTE ${JITUNWIND_GDBINIT_DIR})
  file(WRITE ${_doc}/conffiles "${JITUNWIND_GDBINIT_DIR}/jitunwind.py\n")
  set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${_doc}/conffiles)
endif()
include(CPack)
