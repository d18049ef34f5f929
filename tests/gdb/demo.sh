#!/usr/bin/env bash
# The demo: run tests/testbed/demo.py under gdb with the plugin, stop at the
# checkpoint deep inside JIT code and trampolines, and print the mixed
# backtrace, the Python backtrace and the registered ranges.
set -euo pipefail
build=${1:?usage: demo.sh BUILD_DIR}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PYTHONPATH="$build/testbed${PYTHONPATH:+:$PYTHONPATH}"
export JITUNWIND_LIBRARY="$build/libjitunwind/libjitunwind.so"
exec gdb -nx -batch -q \
    -iex 'set debuginfod enabled off' -iex 'set auto-load python-scripts off' \
    -ex "source $repo/gdb-plugin/jitunwind-gdb.py" \
    -ex 'set breakpoint pending on' \
    -ex 'set print frame-arguments none' \
    -ex 'break jitbed_checkpoint' \
    -ex 'run' \
    -ex 'echo \n=== bt (native + Python, through JIT code and trampolines) ===\n' \
    -ex 'bt' \
    -ex 'echo \n=== py-bt ===\n' \
    -ex 'py-bt' \
    -ex 'echo \n=== info jit-ranges ===\n' \
    -ex 'info jit-ranges' \
    -ex 'kill' \
    --args /usr/bin/python3.11 "$build/testbed/demo.py"
