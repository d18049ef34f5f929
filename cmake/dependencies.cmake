# What the build needs from the system, checked before anything else so that
# a machine without it gets one line naming the Debian packages to install
# (what `pip install .` shows), not the first failing pkg_check_modules.
# Each entry: kind (a pkg-config module or a program):name:Debian package.
set(_ju_needs
  program:pkg-config:pkg-config
  module:libelf:libelf-dev
  module:libdw:libdw-dev
  module:libprotobuf-c:libprotobuf-c-dev
  module:zlib:zlib1g-dev
  program:protoc-c:protobuf-c-compiler)
set(_ju_missing_names)
set(_ju_missing_packages)
find_program(_JU_PKG_CONFIG pkg-config)
foreach(_entry IN LISTS _ju_needs)
  string(REPLACE ":" ";" _fields "${_entry}")
  list(GET _fields 0 _kind)
  list(GET _fields 1 _name)
  list(GET _fields 2 _package)
  set(_found FALSE)
  if(_kind STREQUAL "program")
    find_program(_JU_FOUND_${_name} ${_name})
    if(_JU_FOUND_${_name})
      set(_found TRUE)
    endif()
  elseif(_JU_PKG_CONFIG)
    execute_process(COMMAND ${_JU_PKG_CONFIG} --exists ${_name} RESULT_VARIABLE _rc)
    if(_rc EQUAL 0)
      set(_found TRUE)
    endif()
  endif()
  if(NOT _found)
    list(APPEND _ju_missing_names ${_name})
    list(APPEND _ju_missing_packages ${_package})
  endif()
endforeach()
if(_ju_missing_names)
  list(REMOVE_DUPLICATES _ju_missing_packages)
  list(JOIN _ju_missing_names ", " _names)
  list(JOIN _ju_missing_packages " " _packages)
  message(FATAL_ERROR "jitunwind: missing build dependencies (${_names}); on Debian or Ubuntu: "
                      "apt-get install ${_packages}")
endif()
