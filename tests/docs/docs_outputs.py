#!/usr/bin/env python3
"""Outputs shown in README.md and docs/*.md, checked against (or regenerated
from) real runs.

A fenced block right after a marker line is a real command's output:

    <!-- output: SCENARIO [from=REGEX] [to=REGEX|before=REGEX] [head=N] [tail=N]
                 [keep=REGEX] [more=no] [numbers=any] -->   (on one line)
    ```
    ...lines...
    ```

SCENARIO names a run in SCENARIOS below or in the scenarios_*.py beside
it (one run per scenario, shared by every block that names it).
`from`/`to` (inclusive, the first match of each, in order; or up to the
line before the first match of `before`) choose the lines; `head=N`,
`tail=N` and `keep=REGEX` (no spaces: `\s`) then keep only the first N,
the last N and the matching lines of them (and the `to` line); a line
`...` stands for lines left out. A plain `from`/`to` range that stops
before the end of the output ends with `...` unless `more=no`.
`numbers=any` compares the block with every number taken as any number (a
sampler's counts and rates). A run whose prerequisite is missing skips its
blocks, saying why.

  docs_outputs.py BUILD REPO check     every shown line (addresses, ids and
                                        the repository path normalised) must
                                        appear, in order, in the real output
  docs_outputs.py BUILD REPO refresh   rewrite each block that differs
                                        (but for those) from a real run

Exit 0, 1 on a mismatch, 77 when a scenario cannot run here (it says why).
"""

import glob
import os
import re
import subprocess
import sys

from doc_runs import Skip, need as _need, run as _run
import scenarios_aarch64
import scenarios_cli
import scenarios_jit
import scenarios_jit315
import scenarios_lldb
import scenarios_values

SKIP = 77
MARKER = re.compile(r"^<!-- output: (\S+)((?:\s+\w+=\S+)*)\s*-->\s*$")
ELISION = "..."


def demo(build, repo):
    """tests/gdb/demo.sh: the README's main job."""
    _need(os.path.join(build, "testbed", "demo.py"), "the test bed is not built")
    return _run(["bash", os.path.join(repo, "tests", "gdb", "demo.sh"), build])


def python_module_help(build, repo):
    env = {"PYTHONPATH": os.path.join(repo, "libjitunwind", "bindings", "python")}
    return _run([sys.executable, "-m", "jitunwind", "--help"], env)


SCENARIOS = {
    "demo": demo,
    "cli-stack-demo": scenarios_cli.stack_demo,
    "python-m-jitunwind-help": python_module_help,
}
for _module in (scenarios_lldb, scenarios_values, scenarios_jit, scenarios_jit315,
                scenarios_aarch64, scenarios_cli):
    SCENARIOS.update(_module.SCENARIOS)


def normalise(line, repo, numbers=False):
    line = line.replace(repo.rstrip("/") + "/", "")
    # The extended matrix's interpreters, wherever unpacked, as tests/dev.sh
    # unpacks them (build/cpython-builds).
    line = re.sub(r"(?<![\w.])/[^\s:()]*?/cpython-builds/", "build/cpython-builds/", line)
    # A checkout elsewhere (CI's clean clone) prints its own absolute paths:
    # compare build/ and tests/ paths from the repository root on.
    line = re.sub(r"(?<![\w.])/[^\s:()]*/(?=(build|tests)/)", "", line)
    line = re.sub(r"0x[0-9a-f]+", "0x?", line)
    line = re.sub(r"\b(pid|tid|LWP|Thread 0x\?|process|perf-|Process|Thread)[ =]?\d+", r"\1 N",
                  line)
    # Folders made per run (the lldb plugin's image folder, mkdtemp) or per
    # build of an interpreter (pyenv's build folder, named in its DWARF).
    line = re.sub(r"/tmp/(jitunwind-lldb-|python-build\.)[\w.]+/", r"/tmp/\1N/", line)
    # Arguments a release build does not keep (a register's leftover value).
    line = re.sub(r"=-?\d{7,}\b", "=N", line)
    if numbers:
        line = re.sub(r"\d+(\.\d+)?", "N", line)
    return " ".join(line.split())


def _indented(text, like):
    """`text` indented as the line `like` (an elision among indented lines)."""
    return like[:len(like) - len(like.lstrip())] + text


def excerpt(text, options, repo):
    lines = [l.rstrip() for l in text.replace(repo.rstrip("/") + "/", "").splitlines()]
    start, end = 0, len(lines)
    if "from" in options:
        rx = re.compile(options["from"])
        start = next((i for i, l in enumerate(lines) if rx.search(l)), None)
        if start is None:
            raise ValueError("no line matches from=%s" % options["from"])
    if "to" in options:
        rx = re.compile(options["to"])
        stop = next((i for i in range(start, len(lines)) if rx.search(lines[i])), None)
        if stop is None:
            raise ValueError("no line matches to=%s" % options["to"])
        end = stop + 1
    elif "before" in options:
        rx = re.compile(options["before"])
        end = next((i for i in range(start, len(lines)) if rx.search(lines[i])), None)
        if end is None:
            raise ValueError("no line matches before=%s" % options["before"])
    chosen = lines[start:end]
    if any(k in options for k in ("head", "tail", "keep")):
        n = len(chosen)
        kept = set(range(min(int(options.get("head", 0)), n)))
        kept |= set(range(max(n - int(options.get("tail", 0)), 0), n))
        if "to" in options:
            kept.add(n - 1)
        if "keep" in options:
            rx = re.compile(options["keep"])
            kept |= {i for i, l in enumerate(chosen) if rx.search(l)}
        shown, last = [], -1
        for i in sorted(kept):
            if i != last + 1:
                shown.append(_indented(ELISION, chosen[i]))
            shown.append(chosen[i])
            last = i
        if last != n - 1:
            shown.append(_indented(ELISION, chosen[last] if last >= 0 else ""))
        chosen = shown
    elif end < len(lines) and "to" in options and options.get("more") != "no":
        chosen.append(ELISION)
    return chosen


def blocks(path):
    """(marker line index, scenario, options, block start, block end) per marker."""
    with open(path) as f:
        lines = f.read().split("\n")
    found = []
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        options = dict(o.split("=", 1) for o in m.group(2).split())
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            raise ValueError("%s:%d: an output marker must be followed by a fenced block" % (path, i + 1))
        end = next(j for j in range(i + 2, len(lines)) if lines[j].startswith("```"))
        found.append((i, m.group(1), options, i + 2, end))
    return lines, found


def contains_in_order(shown, real, repo, numbers=False):
    """The first shown line (normalised) that does not appear, in order, in `real`; None if all do."""
    real_norm = [normalise(l, repo, numbers) for l in real.splitlines()]
    pos = 0
    for line in shown:
        if line.strip() == ELISION or not line.strip():
            continue
        want = normalise(line, repo, numbers)
        while pos < len(real_norm) and real_norm[pos] != want:
            pos += 1
        if pos == len(real_norm):
            return line
        pos += 1
    return None


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("check", "refresh"):
        print(__doc__)
        return 2
    build, repo, mode = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    docs = [os.path.join(repo, "README.md")] + sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    outputs, failures, skipped, checked = {}, 0, [], 0
    for path in docs:
        lines, found = blocks(path)
        rel = os.path.relpath(path, repo)
        for marker, scenario, options, start, end in reversed(found):
            if scenario not in SCENARIOS:
                print("FAIL: %s:%d: unknown scenario %s" % (rel, marker + 1, scenario))
                failures += 1
                continue
            if scenario not in outputs:
                try:
                    outputs[scenario] = SCENARIOS[scenario](build, repo)
                except (Skip, RuntimeError, OSError, subprocess.SubprocessError) as why:
                    outputs[scenario] = why
            real = outputs[scenario]
            if isinstance(real, Skip):
                skipped.append("%s:%d (%s: %s)" % (rel, marker + 1, scenario, real))
                continue
            try:
                if isinstance(real, Exception):
                    raise ValueError("the run failed: %s" % real)
                new = excerpt(real, options, repo)
            except (ValueError, re.error) as why:
                failures += 1
                print("FAIL: %s:%d (%s): %s" % (rel, marker + 1, scenario, why))
                continue
            numbers = options.get("numbers") == "any"
            missing = contains_in_order(lines[start:end], real, repo, numbers)
            if mode == "refresh":
                # A block equal to the new excerpt but for addresses and
                # ids is left as it is: they would only churn.
                if [normalise(l, repo, numbers) for l in new] != \
                        [normalise(l, repo, numbers) for l in lines[start:end]]:
                    lines[start:end] = new
                    print("refreshed: %s:%d (%s)" % (rel, marker + 1, scenario))
                continue
            checked += 1
            if missing is not None:
                failures += 1
                print("FAIL: %s:%d (%s): the real output no longer has, in order:\n    %s\n"
                      "  (tests/docs/docs_outputs.py BUILD REPO refresh regenerates it)"
                      % (rel, marker + 1, scenario, missing))
            else:
                print("ok: %s:%d (%s)" % (rel, marker + 1, scenario))
        if mode == "refresh":
            with open(path, "w") as f:
                f.write("\n".join(lines))
    for s in skipped:
        print("skipped: %s" % s)
    if failures:
        return 1
    if mode == "check" and not checked and skipped:
        print("SKIP: no shown output could be checked here")
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
