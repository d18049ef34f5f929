#!/bin/sh
# Plain gdb and lldb, with no -x, no `source` and no `command script import`,
# on python3.11 running hook_target.py: the hooks that an installation wrote
# (HOME's init files, or /etc/gdb/gdbinit.d) must have loaded the plugins.
# Usage: check_debuggers.sh WHAT [gdb-args...]   (prints ok lines, exits 1 on failure)
set -eu
what=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3.11
out=$(gdb -batch -iex 'set debuginfod enabled off' "$@" -ex run -ex bt -ex py-bt \
      --args "$python" "$here/hook_target.py" 2>&1) || true
for want in '\[py\] leaf () at .*hook_target.py:8' '\[py\] middle () at .*hook_target.py:12' \
            '\[py\] <module> () at .*hook_target.py:19' 'File ".*hook_target.py", line 8, in leaf'; do
    if ! printf '%s\n' "$out" | grep -q "$want"; then
        printf '%s\n' "$out" | tail -40
        echo "FAIL: $what: gdb's bt/py-bt has no line matching: $want"
        exit 1
    fi
done
echo "ok: $what: plain gdb shows the mixed stack and py-bt"
if command -v lldb-19 >/dev/null 2>&1 && [ -z "${JITUNWIND_SKIP_LLDB:-}" ]; then
    out=$(lldb-19 -b -o run -o py-bt -o mixed-bt -- "$python" "$here/hook_target.py" 2>&1) || true
    for want in 'leaf.*hook_target.py:8' 'middle.*hook_target.py:12' '<module>.*hook_target.py:19'; do
        if ! printf '%s\n' "$out" | grep -q "$want"; then
            printf '%s\n' "$out" | tail -40
            echo "FAIL: $what: lldb's py-bt/mixed-bt has no line matching: $want"
            exit 1
        fi
    done
    echo "ok: $what: plain lldb loads the plugin (py-bt, mixed-bt)"
fi
