#!/bin/sh
# The Debian package: configured for /usr, built with CPack, linted, unpacked
# into a scratch root (file list, and the gdb hook from there), and, in CI
# (root, CI set), installed with dpkg -i so that a plain gdb with no init
# arguments picks the plugin up, then purged.
# Usage: test_deb.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
work=$(mktemp -d "$build/deb-test.XXXXXX")
installed=
cleanup() {
    [ -z "$installed" ] || dpkg -P jitunwind >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
# sh runs the EXIT trap on exit only: a test stopped by a signal (a timeout, a
# cancelled run) must still purge the package it installed system-wide.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
cmake -S "$src" -B "$work/build" -DCMAKE_INSTALL_PREFIX=/usr -DJITUNWIND_BUILD_TESTS=OFF \
      -DJITUNWIND_BUILD_TESTBED=OFF >/dev/null
cmake --build "$work/build" -j2 >/dev/null
(cd "$work/build" && cpack -G DEB >/dev/null)
deb=$(ls "$work"/build/jitunwind_*.deb)
echo "ok: built $(basename "$deb")"
if command -v lintian >/dev/null 2>&1; then
    lint=$(lintian "$deb" 2>&1 | grep -v 'root privileges' || true)
    if printf '%s\n' "$lint" | grep -q '^E:'; then
        printf '%s\n' "$lint"; echo "FAIL: lintian reports errors"; exit 1
    fi
    echo "ok: lintian reports no errors ($(printf '%s\n' "$lint" | grep -c '^W:' || true) warnings)"
else
    echo "FAIL: lintian is not installed (tests/dev.sh installs it)"; exit 1
fi
multiarch=$(gcc -print-multiarch)
dpkg -c "$deb" | awk '{print $6}' > "$work/files"
for f in ./etc/gdb/gdbinit.d/jitunwind.py ./usr/lib/$multiarch/libjitunwind.so.0 \
         ./usr/lib/$multiarch/libjitunwind.a ./usr/lib/$multiarch/pkgconfig/libjitunwind.pc \
         ./usr/lib/$multiarch/cmake/jitunwind/jitunwindConfig.cmake ./usr/include/jitunwind/jitunwind.h \
         ./usr/share/jitunwind/gdb-plugin/jitunwind-gdb.py ./usr/share/jitunwind/gdb-plugin/jitunwind-lazy.py \
         ./usr/share/jitunwind/lldb-plugin/jitunwind_lldb/__init__.py \
         ./usr/share/jitunwind/python/jitunwind/__init__.py ./usr/share/doc/jitunwind/copyright \
         ./usr/bin/jitunwind ./usr/share/man/man1/jitunwind.1.gz; do
    grep -qx "$f" "$work/files" || { cat "$work/files"; echo "FAIL: the package lacks $f"; exit 1; }
done
dpkg -I "$deb" conffiles | grep -qx /etc/gdb/gdbinit.d/jitunwind.py || { echo "FAIL: the gdb hook is not a conffile"; exit 1; }
echo "ok: the package holds the libraries, headers, pkg-config and CMake files, plugins and the gdb hook"

# From a scratch root: the hook finds the plugin beside it, the plugin the library.
dpkg -x "$deb" "$work/root"
JITUNWIND_SKIP_LLDB=1 python3 "$src/tests/install/check_debuggers.py" "deb unpacked in a scratch root" \
    -nx -iex "source $work/root/etc/gdb/gdbinit.d/jitunwind.py"

if [ "$(id -u)" -eq 0 ] && [ -n "${CI:-}" ]; then
    if dpkg -s jitunwind >/dev/null 2>&1; then
        echo "ok: skipping dpkg -i (a jitunwind package is already installed here)"
        exit 0
    fi
    installed=1
    dpkg -i "$deb" >/dev/null
    JITUNWIND_SKIP_LLDB=1 env -u JITUNWIND_LIBRARY HOME="$work" XDG_CONFIG_HOME= \
        python3 "$src/tests/install/check_debuggers.py" "deb installed with dpkg -i"
    dpkg -P jitunwind >/dev/null
    installed=
    [ ! -e /etc/gdb/gdbinit.d/jitunwind.py ] && [ ! -e /usr/share/jitunwind ] || {
        echo "FAIL: dpkg -P left files behind"; exit 1; }
    echo "ok: dpkg -i installs and dpkg -P removes it cleanly"
else
    echo "ok: dpkg -i not tried (only as root with CI set)"
fi
