#!/bin/sh
# Install the build into a scratch prefix, then build a consumer with
# find_package(jitunwind) and another with pkg-config, and run both.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
libdir=$(dirname "$(find "$work/prefix" -name libjitunwind.so.0 | head -n1)")
test -n "$libdir"
test -f "$work/prefix/share/jitunwind/gdb-plugin/jitunwind-gdb.py"
test -f "$work/prefix/share/jitunwind/python/jitunwind/__init__.py"
test -n "$(find "$work/prefix/share/gdb/auto-load" -name 'libjitunwind.so.*-gdb.py')"

cmake -S "$src/tests/install/consumer" -B "$work/cmake-consumer" \
      -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake-consumer" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/cmake-consumer/consumer"

PKG_CONFIG_PATH="$libdir/pkgconfig" cc -std=c11 -o "$work/pc-consumer" \
    "$src/tests/install/consumer/main.c" $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs libjitunwind)
LD_LIBRARY_PATH="$libdir" "$work/pc-consumer"

# The static archive links on its own (pkg-config --static names libdw, libelf).
test -f "$libdir/libjitunwind.a"
PKG_CONFIG_PATH="$libdir/pkgconfig" cc -std=c11 -o "$work/static-consumer" "$src/tests/install/consumer/main.c" \
    $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags libjitunwind) "$libdir/libjitunwind.a" \
    $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --static --libs libjitunwind | sed 's/-ljitunwind//')
if ldd "$work/static-consumer" | grep -q libjitunwind; then
    echo "FAIL: the static consumer needs libjitunwind.so"; exit 1
fi
"$work/static-consumer"

# The system-wide gdb hook, under the prefix, reaches the installed plugin.
hook="$work/prefix/etc/gdb/gdbinit.d/jitunwind.py"
test -f "$hook"
python3 - "$hook" <<'PY'
import os, re, sys
text = open(sys.argv[1]).read()
rel = re.search(r'"([^"]*jitunwind-lazy.py)"', text).group(1)
target = os.path.normpath(os.path.join(os.path.dirname(sys.argv[1]), rel))
assert os.path.exists(target), target
PY
# Loaded at once (JITUNWIND_HOOK_EAGER=1) the hook sources the plugin while gdb
# is still running the hook itself, and a user's script may source the plugin
# from inside another script: both must load the installed plugin.
printf 'import gdb\ngdb.execute("source %s")\n' "$work/prefix/share/jitunwind/gdb-plugin/jitunwind-gdb.py" \
    > "$work/outer.py"
for how in "-iex|source $hook" "-x|$work/outer.py"; do
    out=$(cd "$work" && env -u JITUNWIND_LIBRARY JITUNWIND_HOOK_EAGER=1 gdb -nx -batch \
          "${how%%|*}" "${how#*|}" -ex "help mixed-bt" 2>&1 || true)
    case $out in
        *"plugin not loaded"*|*"Undefined command"*)
            printf '%s\n' "$out"; echo "FAIL: gdb ${how%%|*} ${how#*|}: the plugin did not load"; exit 1;;
    esac
done

# The installed binding finds the installed library by itself.
python3 -c "import sys; sys.path.insert(0, '$work/prefix/share/jitunwind/python'); import jitunwind; print('binding loads', jitunwind.library().jitunwind_loaded_from)"
# The jitunwind command finds the installed library (RPATH) and has its man page.
"$work/prefix/bin/jitunwind" --version | grep -q '^jitunwind [0-9]'
test -f "$work/prefix/share/man/man1/jitunwind.1.gz"
echo "ok: install, find_package, pkg-config (shared and static), the gdb hook (eager, and sourced from another script), the installed binding and the jitunwind command work"
