#!/usr/bin/env bash
# Cross-build the test bed (tests/testbed) for AArch64 against Debian's arm64
# python3.11 headers in the sysroot made by setup.sh. Output, under the build
# folder: aarch64/testbed/_jitbed.cpython-311-aarch64-linux-gnu.so and demo.py.
#   build_testbed.sh BUILD_DIR [pac]   # prints the test bed folder on success
# With `pac`, into aarch64/testbed-pac with the module's C compiled
# -mbranch-protection=pac-ret: every saved x30 carries a pointer-
# authentication code (qemu-user signs with real keys).
# The sources are the x86-64 test bed's; only the trampoline templates
# (trampoline_aarch64.S) and the flags differ. libjitunwind's in-process
# registration (base/, ranges/ but registry_modules.c, jit/ but
# gdb_jit_publish.c) is compiled into the module (a library symbol left
# undefined fails here, not at import):
# the target needs only jitunwind_jit_register and the descriptor, not the
# reader side (libelf/libdw). Exit 77 with the reason when it cannot build.
set -euo pipefail
build=$(cd "${1:?usage: build_testbed.sh BUILD_DIR [pac]}" && pwd)
variant=${2:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bed="$repo/tests/testbed"
lib="$repo/libjitunwind"
out="$build/aarch64/testbed${variant:+-$variant}"
gen="$out-obj"
case "$variant" in
"") protect=() ;;
pac) protect=(-mbranch-protection=pac-ret) ;;
*) echo "build_testbed.sh: unknown variant $variant" >&2; exit 2 ;;
esac
cc=aarch64-linux-gnu-gcc

sysroot=$(bash "$here/setup.sh" "$build")
extract="$build/tests/testbed/jitbed_extract_stencils"
if [ ! -x "$extract" ]; then
    echo "aarch64 test bed: $extract not built (the x86-64 test bed is off or failed)" >&2
    exit 77
fi
pyinc="$sysroot/usr/include/python3.11"
[ -f "$pyinc/Python.h" ] && [ -f "$pyinc/internal/pycore_frame.h" ] ||
    { echo "aarch64 test bed: no arm64 python3.11 headers in $pyinc" >&2; exit 77; }
mkdir -p "$out" "$gen"
module="$out/_jitbed.cpython-311-aarch64-linux-gnu.so"
# Up to date: nothing it is made from is newer than the module.
if [ -f "$module" ] && [ -f "$out/demo.py" ] &&
   [ -z "$(find "$bed" "$lib/src" "$lib/include" "$extract" "${BASH_SOURCE[0]}" -newer "$module" -print -quit)" ]; then
    echo "$out"
    exit 0
fi

# 1. Stencils compiled the way the frame-pointer-preserving JIT needs them
# (CPython's AArch64 stencils reserve x29; GCC spells it -ffixed-x29): no
# stencil writes x29, none has unwind tables; -mcmodel=large with literal
# pools in the stencil itself makes every data hole an absolute 64-bit
# value, and calls and the continuation are b/bl (JUMP26/CALL26) holes.
$cc -O2 -std=c11 -fomit-frame-pointer -ffixed-x29 -mcmodel=large -mpc-relative-literal-loads \
    -fno-pic -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-stack-protector \
    -fno-jump-tables -fno-builtin -ffunction-sections -mno-outline-atomics \
    -I"$bed" -c "$bed/stencils.c" -o "$gen/stencils.o"
if aarch64-linux-gnu-objdump -d "$gen/stencils.o" | grep -E '\b(x29|w29|fp)\b'; then
    echo "aarch64 test bed: the stencils use x29" >&2
    exit 1
fi
"$extract" "$gen/stencils.o" "$gen/stencils_gen.h"

# 2. The module: C with frame records (the shim keeps one), the AArch64
# trampoline templates, and the library's registration side.
cflags=("${protect[@]}" -O2 -g -fPIC -std=gnu11 -fno-omit-frame-pointer -D_GNU_SOURCE
        -I"$pyinc" -I"$sysroot/usr/include" -I"$bed" -I"$gen" -I"$lib/include")
objs=()
for src in "$bed/module.c" "$bed/jit.c" "$bed/trampolines.c"; do
    o="$gen/$(basename "$src" .c).o"
    $cc "${cflags[@]}" -c "$src" -o "$o"
    objs+=("$o")
done
$cc -c "$bed/trampoline_aarch64.S" -o "$gen/trampoline_aarch64.o"
objs+=("$gen/trampoline_aarch64.o")
for src in "$lib"/src/base/*.c "$lib"/src/ranges/*.c "$lib"/src/jit/*.c; do
    # registry_modules.c joins ranges with the reader's modules (elf/modules.c);
    # gdb_jit_publish.c writes ELF images (image/)
    case "$(basename "$src")" in registry_modules.c | gdb_jit_publish.c) continue ;; esac
    o="$gen/lib_$(basename "$src" .c).o"
    $cc -O2 -g -fPIC -std=c11 -D_GNU_SOURCE -DJITUNWIND_BUILDING -DJITUNWIND_VERSION_STRING='"aarch64-testbed"' \
        -fvisibility=hidden -I"$lib/include" -I"$lib/src" -c "$src" -o "$o"
    objs+=("$o")
done
$cc -shared -o "$module" "${objs[@]}" -lpthread
if undefined=$(nm -D --undefined-only "$module" | grep -E ' (jitunwind|ju)_'); then
    rm -f "$module"
    echo "build_testbed.sh: the library objects compiled in leave undefined: $undefined" >&2
    exit 1
fi
cp "$bed/demo.py" "$out/demo.py"
echo "$out"
