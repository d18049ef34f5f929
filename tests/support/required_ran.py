#!/usr/bin/env python3
"""Fail when a test CI requires did not run.

Usage: required_ran.py REQUIRED_LIST CTEST_JUNIT_XML

REQUIRED_LIST names one ctest test a line (# starts a comment);
CTEST_JUNIT_XML is what `ctest --output-junit` wrote. Every listed test must
be in the results with status "run" (passed or failed: failures are ctest's
to report). A listed test that skipped, was disabled or is absent is named
with the first line of its output, and the exit status is 1.
"""

import sys
import xml.etree.ElementTree as ET


def required(path):
    with open(path) as f:
        return [l.split("#", 1)[0].strip() for l in f if l.split("#", 1)[0].strip()]


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    names = required(sys.argv[1])
    cases = {c.get("name"): c for c in ET.parse(sys.argv[2]).getroot().iter("testcase")}
    missing = []
    for name in names:
        case = cases.get(name)
        if case is None:
            missing.append("%s: not in ctest's results (renamed, removed or filtered out)" % name)
        elif case.get("status") != "run":
            out = (case.findtext("system-out") or "").strip().splitlines()
            missing.append("%s: %s: %s" % (name, case.get("status"), out[0] if out else "no output"))
    for line in missing:
        print("required_ran: " + line)
    if missing:
        print("required_ran: %d of the %d tests CI requires did not run (%s)"
              % (len(missing), len(names), sys.argv[1]))
        return 1
    print("required_ran: all %d tests CI requires ran" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
