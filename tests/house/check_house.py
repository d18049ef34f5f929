#!/usr/bin/env python3
"""The house rules a reader can check without judgement, over the files git
tracks:

- rooms stay small: no folder of the library's src/ holds more than 16 files;
- internal.h is what every floor needs and nothing more: it includes only
  headers of src/base/;
- code, tests, plugins and tools carry no history: no issue numbers
  ("issue 12", "#12" after "issue") and no calendar dates; history lives in
  docs/notes/ and the commit log.

Usage: check_house.py SOURCE_DIR     Exit 0 when the tree keeps every rule,
1 otherwise (each breach on a line of its own)."""

import os
import re
import subprocess
import sys

MAX_FILES_PER_ROOM = 16
HISTORY_FREE = ("libjitunwind/", "tools/", "tests/", "gdb-plugin/", "lldb-plugin/", ".ci/")
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues? #?[0-9]+\b")
DATE = re.compile(r"\b20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])\b")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TEXT_SUFFIXES = (".c", ".h", ".py", ".sh", ".cmake", ".txt", ".in", ".map", ".symbols", "")


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                         capture_output=True).stdout
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def rooms(files):
    count = {}
    for path in files:
        if path.startswith("libjitunwind/src/"):
            folder = os.path.dirname(path)
            count[folder] = count.get(folder, 0) + 1
    return ["%s holds %d files (at most %d: split it by concern)" % (f, n, MAX_FILES_PER_ROOM)
            for f, n in sorted(count.items()) if n > MAX_FILES_PER_ROOM]


def internal_header(root):
    path = os.path.join(root, "libjitunwind/src/internal.h")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return ["libjitunwind/src/internal.h includes %s (only base/ headers belong there)" % name
            for name in INCLUDE.findall(text) if not name.startswith("base/")]


def history(root, files):
    found = []
    for path in files:
        if not path.startswith(HISTORY_FREE) or os.path.splitext(path)[1] not in TEXT_SUFFIXES:
            continue
        if path == "tests/house/check_house.py":
            continue  # states the rule, with its examples
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                lines = f.readlines()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        for number, line in enumerate(lines, 1):
            for pattern, what in ((ISSUE_NUMBER, "an issue number"), (DATE, "a date")):
                hit = pattern.search(line)
                if hit:
                    found.append("%s:%d: %s (%r)" % (path, number, what, hit.group(0)))
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    root = sys.argv[1]
    files = tracked(root)
    breaches = rooms(files) + internal_header(root) + history(root, files)
    for line in breaches:
        print(line)
    if breaches:
        print("%d breaches of the house rules" % len(breaches))
        return 1
    print("house rules kept over %d tracked files" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
