#!/bin/sh
# A machine without the build's system libraries: configuring (what
# `pip install .` runs first) fails with one message naming the Debian
# packages to install, not a bare error of the first pkg-config check.
# pkg-config is made to see no module at all (PKG_CONFIG_LIBDIR empty).
# Usage: test_build_deps.sh SOURCE_DIR
set -eu
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if PKG_CONFIG_LIBDIR="$work/none" cmake -S "$src" -B "$work/build" \
       -DJITUNWIND_BUILD_TESTS=OFF -DJITUNWIND_BUILD_TESTBED=OFF >"$work/out" 2>&1; then
    cat "$work/out"; echo "FAIL: configured without libelf, libdw, protobuf-c or zlib"; exit 1
fi
# CMake wraps a message's lines: join them before matching.
text=$(sed -n '/missing build dependencies/,/^Call Stack/p' "$work/out" | tr -s ' \n' ' ')
for want in "missing build dependencies (libelf, libdw, libprotobuf-c, zlib)" \
            "apt-get install libelf-dev libdw-dev libprotobuf-c-dev zlib1g-dev"; do
    case "$text" in
    *"$want"*) ;;
    *) cat "$work/out"; echo "FAIL: the message does not say: $want"; exit 1 ;;
    esac
done
if grep -q "pkg_check_modules\|FindPkgConfig" "$work/out"; then
    cat "$work/out"; echo "FAIL: a pkg-config check failed before the dependency message"; exit 1
fi
echo "ok: without the libraries, configuring names them and the Debian packages: $want"
