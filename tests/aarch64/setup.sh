#!/usr/bin/env bash
# The AArch64 sysroot for the qemu-user tests: Debian's arm64 python3.11 and
# the libraries it needs, unpacked with `dpkg -x` under the build folder
# (never in the repository). Idempotent: a stamp naming the package list
# says the sysroot is complete; a changed list unpacks again.
#   setup.sh BUILD_DIR      # prints the sysroot path on success
# Exit 77 with one line on stderr when it cannot work here (no qemu, no
# cross compiler, no arm64 packages reachable): the tests then skip.
set -euo pipefail
mkdir -p "${1:?usage: setup.sh BUILD_DIR}"
build=$(cd "$1" && pwd)
root="$build/aarch64"
sysroot="$root/sysroot"
debs="$root/debs"

# Debian arm64 packages: the interpreter, its stdlib and headers, the C
# library, and the debug pieces (python3.11-dbg carries the DWARF of
# python3.11 under /usr/lib/debug/.build-id, libc6-dbg names libc's frames).
packages=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libpython3.11-dev
          libpython3.11 libc6 libexpat1 zlib1g libffi8 libssl3 libbz2-1.0 liblzma5
          libgcc-s1 python3.11-dbg libpython3.11-dbg libc6-dbg)
stamp="$root/sysroot.stamp"
want="$(printf '%s:arm64\n' "${packages[@]}")"

skip() { echo "aarch64 setup: $*" >&2; exit 77; }

for tool in qemu-aarch64-static aarch64-linux-gnu-gcc gdb-multiarch; do
    command -v "$tool" >/dev/null || skip "$tool not found (apt-get install qemu-user-static gcc-aarch64-linux-gnu gdb-multiarch)"
done

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$sysroot/usr/bin/python3.11" ]; then
    echo "$sysroot"
    exit 0
fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    [ "$(id -u)" -eq 0 ] || skip "dpkg has no arm64 architecture and we are not root to add it"
    dpkg --add-architecture arm64
    apt-get -o DPkg::Lock::Timeout=900 update -qq >/dev/null 2>&1 || true
fi
mkdir -p "$debs"
rm -rf "$sysroot.tmp"
mkdir -p "$sysroot.tmp"
# apt-get download needs a directory the _apt user may write to, or it warns;
# it works either way.
if ! (cd "$debs" && apt-get download -q "${packages[@]/%/:arm64}" >"$root/download.log" 2>&1); then
    [ "$(id -u)" -eq 0 ] && apt-get -o DPkg::Lock::Timeout=900 update -qq >/dev/null 2>&1 || true
    (cd "$debs" && apt-get download -q "${packages[@]/%/:arm64}" >"$root/download.log" 2>&1) ||
        skip "apt-get download of the arm64 packages failed: $(tail -1 "$root/download.log")"
fi
for p in "${packages[@]}"; do
    deb=$(ls -t "$debs/${p}_"*_arm64.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || skip "no downloaded .deb for $p:arm64"
    dpkg -x "$deb" "$sysroot.tmp"
done
# The sysroot is replaced whole, so a half-unpacked one never looks complete.
rm -rf "$sysroot"
mv "$sysroot.tmp" "$sysroot"
[ -x "$sysroot/usr/bin/python3.11" ] || skip "the arm64 python3.11 is missing from $sysroot"
# Debian's aarch64 loader is /lib/ld-linux-aarch64.so.1 -> usr/lib/...: make
# the merged-/usr links qemu -L needs.
for d in lib bin sbin; do
    [ -e "$sysroot/$d" ] || ln -s "usr/$d" "$sysroot/$d"
done
out=$(qemu-aarch64-static -L "$sysroot" "$sysroot/usr/bin/python3.11" -c 'import sys; print(sys.version_info[:2])' 2>&1) ||
    skip "the arm64 python3.11 does not run under qemu-aarch64-static: $out"
[ "$out" = "(3, 11)" ] || skip "unexpected output from the arm64 python3.11 under qemu: $out"
echo "$want" >"$stamp"
echo "$sysroot"
