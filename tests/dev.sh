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
          clang-19 lld libc6-dev-arm64-cross)

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

configure_and_build() {
    cmake -S "$repo" -B "$build" -DJITUNWIND_WERROR=ON >/dev/null
    cmake --build "$build" -j"$(nproc)" >/dev/null
}

case "$mode" in
demo)
    install_missing
    configure_and_build
    exec bash "$repo/tests/gdb/demo.sh" "$build"
    ;;
test)
    install_missing
    configure_and_build
    (cd "$build" && ctest --output-on-failure -j"$(nproc)")
    # The unit suites again under AddressSanitizer, LeakSanitizer and UBSan.
    cmake -S "$repo" -B "$repo/build-asan" -DJITUNWIND_WERROR=ON -DJITUNWIND_SANITIZE=ON \
          -DJITUNWIND_BUILD_TESTBED=OFF >/dev/null
    cmake --build "$repo/build-asan" -j"$(nproc)" >/dev/null
    cd "$repo/build-asan"
    ctest --output-on-failure -j"$(nproc)" -R '^unit\.'
    ;;
*)
    echo "usage: $0 demo|test" >&2
    exit 2
    ;;
esac
