#!/usr/bin/env python3
"""README.md's "Building by hand" apt-get line names exactly the packages
tests/dev.sh installs (its `packages=` list), so that following the README
by hand gives what the tests need.

Usage: check_apt_list.py REPO      Exit 0 when they agree, 1 otherwise."""

import re
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    repo = sys.argv[1]
    with open(repo + "/tests/dev.sh") as f:
        script = set(re.search(r"packages=\(([^)]*)\)", f.read()).group(1).split())
    with open(repo + "/README.md") as f:
        lines = [l for l in f if l.startswith("apt-get install ")]
    if len(lines) != 1:
        print("FAIL: README.md should have one `apt-get install` line, has %d" % len(lines))
        return 1
    readme = set(lines[0].split()[2:])
    if readme != script:
        print("FAIL: README.md's apt-get line and tests/dev.sh differ: only in README %s, "
              "only in dev.sh %s" % (sorted(readme - script), sorted(script - readme)))
        return 1
    print("ok: README.md's apt-get line names the %d packages tests/dev.sh installs" % len(script))
    return 0


if __name__ == "__main__":
    sys.exit(main())
