#!/usr/bin/env python3
"""The plugin's ELF image of the ranges (LLDB 19-21) is written again only
when the ranges change: tests/jitpublish/jit_host stopped at jit_callee; a
new stop with the same ranges and `jit-image refresh` keep the loaded image
file; a range registered in the target (by an expression) gives a new image
at the next stop with one range more, and unregistering it gives a new one
with `jit-image refresh`.

Usage: test_lldb_image_refresh.py BUILD_DIR REPO_DIR
Exit 0 on success, 1 on failure, 77 to skip (with the reason printed)."""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from demo_stack import fail  # noqa: E402
from test_lldb_demo import SKIP, lldb_cmd, run  # noqa: E402

# Never mapped in jit_host: the range is only described, never run.
ADDED = 0x7e0000000000
STATUS = re.compile(r"^jit-image: (\S+\.elf): (\d+) ranges", re.M)
REFRESH = re.compile(r"^jit-image: (reloaded|unchanged.*|[^/].*)$", re.M)


def main():
    build, repo = sys.argv[1:3]
    host = os.path.join(build, "tests", "jitpublish", "jit_host")
    if not os.path.exists(host):
        print("SKIP: %s is not built (x86-64 only)" % host)
        return SKIP
    commands = [
        "breakpoint set -n jit_callee", "process launch -- 300 0", "jit-image",
        "thread step-inst", "jit-image",
        "jit-image refresh", "jit-image",
        "expression unsigned long $jid = 0",
        'expression (int)jitunwind_jit_register((void *)%#x, 16, 1, 1, "jit:added", 0, &$jid)'
        % ADDED,
        "thread step-inst", "jit-image",
        "expression (int)jitunwind_jit_unregister($jid)",
        "jit-image refresh", "jit-image", "kill"]
    out = run(lldb_cmd(repo, True, commands, [host]), dict(os.environ))
    if "jitunwind: jit-image:" in out:
        fail("the image reports a problem:\n%s" % out[-3000:])
    images = [(path, int(n)) for path, n in STATUS.findall(out)]
    refreshes = REFRESH.findall(out)
    if len(images) != 5 or len(refreshes) != 2:
        fail("want 5 image statuses and 2 refreshes, got %r %r:\n%s"
             % (images, refreshes, out[-3000:]))
    first, stepped, refreshed, added, removed = images
    if first[1] != 302:
        fail("the first image holds %d ranges, want 302" % first[1])
    if stepped != first:
        fail("a stop with the same ranges wrote a new image: %r then %r" % (first, stepped))
    print("ok: a stop with the same ranges keeps the image %s" % os.path.basename(first[0]))
    if not refreshes[0].startswith("unchanged") or refreshed != first:
        fail("jit-image refresh with the same ranges says %r and loads %r (was %r)"
             % (refreshes[0], refreshed, first))
    print("ok: jit-image refresh with the same ranges says %r and keeps the image"
          % refreshes[0])
    if added[1] != 303 or added[0] == first[0]:
        fail("after a range was registered the next stop loads %r (was %r)" % (added, first))
    print("ok: a range registered between two stops gives a new image of 303 ranges")
    if refreshes[1] != "reloaded" or removed[1] != 302 or removed[0] == added[0]:
        fail("after the range was unregistered jit-image refresh says %r and loads %r"
             % (refreshes[1], removed))
    print("ok: jit-image refresh after a range was unregistered loads a new image of 302")
    return 0


if __name__ == "__main__":
    sys.exit(main())
