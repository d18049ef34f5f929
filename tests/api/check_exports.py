#!/usr/bin/env python3
"""The shared library exports exactly the symbols libjitunwind/libjitunwind.symbols
lists (name@@version node, one a line, sorted): a symbol that appears or
disappears fails here until that list changes with it, so a change of the
ABI is always a visible change of that file.

Usage: check_exports.py LIBRARY SYMBOL_LIST      Exit 0 when they agree, 1 otherwise."""

import subprocess
import sys


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], stdout=subprocess.PIPE,
                         text=True, check=True, timeout=120).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    library, listing = sys.argv[1:]
    with open(listing) as f:
        listed = {line.strip() for line in f if line.strip()}
    found = exported(library)
    if found != listed:
        print("FAIL: %s exports what %s does not list: %s; lists what it does not export: %s"
              % (library, listing, sorted(found - listed) or "nothing",
                 sorted(listed - found) or "nothing"))
        return 1
    print("ok: %s exports the %d symbols %s lists" % (library, len(found), listing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
