#!/usr/bin/env python3
"""Threads are named as Python names them: `stack` (mixed and --python)
heads each thread with its `threading` name ("MainThread" for the main
thread, "payer" and "payee" for two started threads, the second spinning)
and names it in
`stack --json`, for the live process and for a core of it (`stack --core`);
`record --format speedscope` names each thread's profile with it (also
with --nonblocking, and with --perf the spinning thread's, where perf
events are allowed), and
`record --format pprof` labels each thread's samples with its id and name
(thread_id, thread_name: `go tool pprof -raw` shows them), and `record
--threads` roots each thread's stacks at a frame naming it, `Thread TID
"name"`, in the collapsed format and in the SVG flame graph (and is
refused with speedscope and pprof, which are per thread already), on
Debian's 3.11, pyenv's 3.12.1 and 3.13.0 and every interpreter of $JITUNWIND_EXTRA_PYTHONS. The OS names differ:
the main thread's is the program's ("python3.11"), and before 3.14 the
started threads' are too.

Usage: test_cli_thread_names.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import json
import os
import xml.etree.ElementTree as ET
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from demo_stack import end_target, fail, part_missing  # noqa: E402
from extra_pythons import extra_pythons, present  # noqa: E402
from ready_target import built_tool, start_ready  # noqa: E402
from test_cli_perf import perf_available  # noqa: E402
from values_target import gcore  # noqa: E402

SKIP = 77
PYTHONS = ["/usr/bin/python3.11", os.path.expanduser("~/.pyenv/versions/3.12.1/bin/python3.12"),
           os.path.expanduser("~/.pyenv/versions/3.13.0/bin/python3.13")]
NAMES = ["payer", "payee"]

TARGET = r'''
import sys, threading, time
stop = threading.Event()
def spin():
    while not stop.is_set():
        pass
started = [threading.Thread(target=f, name=n) for f, n in zip((stop.wait, spin), %r)]
for t in started:
    t.start()
with open(sys.argv[1] + ".tids", "w") as f:
    f.write(" ".join(str(t.native_id) for t in [threading.main_thread()] + started))
open(sys.argv[1], "w").close()
while True:
    time.sleep(0.01)
''' % (NAMES,)


def pprof_threads(path):
    """{tid: name} from the thread_id and thread_name labels `go tool pprof
    -raw` shows under each sample of the profile at `path`; None without go."""
    if not shutil.which("go"):
        return None
    r = subprocess.run(["go", "tool", "pprof", "-raw", path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    named, labels = {}, {}
    for line in r.stdout.splitlines() + [""]:
        label = re.match(r"^\s+(thread_id|thread_name):\[(.*)\]$", line)
        if label:
            labels[label.group(1)] = label.group(2)
            continue
        if "thread_id" in labels:
            named[labels["thread_id"]] = labels.get("thread_name")
        labels = {}
    return named or {"(no labelled sample)": r.stdout[-800:]}


def check_stack(j, args, want, label, failures):
    """`stack ARGS` heads each thread of `want` ({tid: name}) with its name,
    and `stack ARGS --json` names it."""
    r = subprocess.run([j, "stack"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    heads = dict(re.findall(r'^Thread (\d+) "([^"]*)"', r.stdout, re.M))
    for tid, name in want.items():
        if heads.get(tid) != name:
            failures.append("%s: stack heads thread %s %r, not %r:\n%s"
                            % (label, tid, heads.get(tid), name, r.stdout[-1500:]))
    r = subprocess.run([j, "stack"] + args + ["--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    try:
        named = {str(t["tid"]): t["name"] for t in json.loads(r.stdout)["threads"]}
    except (ValueError, KeyError, TypeError) as exc:
        named = {"(no document)": "%s: %s" % (exc, r.stdout[-500:])}
    for tid, name in want.items():
        if named.get(tid) != name:
            failures.append("%s: stack --json names thread %s %r, not %r (%s)"
                            % (label, tid, named.get(tid), name, named))


def check_speedscope(j, pid, mode, want, label, work, failures, seconds=1):
    """`record --format speedscope` (with the sampler options `mode`) names
    a profile `Thread TID "name"` for each thread of `want`."""
    out = os.path.join(work, "profile.json")
    if os.path.exists(out):
        os.unlink(out)
    r = subprocess.run([j, "record"] + ([str(pid)] if pid else []) + ["-d", str(seconds), "-F", "50",
                                                                       "--idle"] + mode
                       + ["--format", "speedscope", "-o", out], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    try:
        names = [p["name"] for p in json.load(open(out))["profiles"]]
    except (OSError, ValueError, KeyError) as exc:
        names = ["(no profile: %s; %s)" % (exc, r.stdout[-500:])]
    for tid, name in want.items():
        if 'Thread %s "%s"' % (tid, name) not in names:
            failures.append("%s: record %s--format speedscope: no profile named %r among %s"
                            % (label, "".join(m + " " for m in mode), 'Thread %s "%s"' % (tid, name),
                               names))


def check(j, python, failures):
    work = tempfile.mkdtemp(prefix="ju-names-")
    target = start_ready([python], TARGET, work)
    try:
        tids = open(os.path.join(work, "ready.tids")).read().split()
        want = dict(zip(tids, ["MainThread"] + NAMES))
        for only in ([], ["--python"]):
            check_stack(j, [str(target.pid)] + only, want, python, failures)
        core = os.path.join(work, "core")
        if gcore(target.pid, core):
            check_stack(j, ["--core", core, "--exe", python], want, python + " (core)", failures)
        else:
            failures.append("%s: gdb's gcore wrote no core of the target" % python)
        for mode in ([], ["--nonblocking"]):
            check_speedscope(j, target.pid, mode, want, python, work, failures)
        why = perf_available()
        if why:
            part_missing("perf events refused (%s): record --perf not tried" % why)
        else:
            # cpu-clock events sample only the thread that runs
            check_speedscope(j, target.pid, ["--perf"], {tids[2]: NAMES[1]}, python, work,
                             failures, seconds=2)
            # every process of the machine, each Python one named from its own reader
            check_speedscope(j, None, ["--perf", "--all"], {tids[2]: NAMES[1]}, python, work,
                             failures, seconds=2)
        r = subprocess.run([j, "record", str(target.pid), "-d", "1", "-F", "50", "--idle",
                            "--threads", "-o", "-"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        roots = set(line.split(";")[0] for line in r.stdout.splitlines())
        for tid, name in want.items():
            if 'Thread %s "%s"' % (tid, name) not in roots:
                failures.append("%s: record --threads: no collapsed stack rooted at %r among %s "
                                "(exit %d: %s)" % (python, 'Thread %s "%s"' % (tid, name),
                                                   sorted(roots)[:8], r.returncode, r.stderr[-600:]))
        out = os.path.join(work, "flame.svg")
        r = subprocess.run([j, "record", str(target.pid), "-d", "1", "-F", "50", "--idle",
                            "--threads", "--format", "flamegraph", "-o", out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        try:
            titles = [t.text or "" for t in ET.parse(out).iter("{http://www.w3.org/2000/svg}title")]
        except (OSError, ET.ParseError) as exc:
            titles = ["(no SVG: %s; %s)" % (exc, r.stdout[-300:])]
        for tid, name in want.items():
            if not any(t.startswith('Thread %s "%s" (' % (tid, name)) for t in titles):
                failures.append("%s: record --threads --format flamegraph: no frame titled %r"
                                % (python, 'Thread %s "%s"' % (tid, name)))
        out = os.path.join(work, "profile.pb.gz")
        r = subprocess.run([j, "record", str(target.pid), "-d", "1", "-F", "50", "--idle",
                            "--format", "pprof", "-o", out], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        labelled = pprof_threads(out)
        if labelled is None:
            part_missing("no `go` command (Debian golang-go): the pprof labels are not read")
        else:
            for tid, name in want.items():
                if labelled.get(tid) != name:
                    failures.append("%s: pprof labels thread %s %r, not %r (%s; %s)"
                                    % (python, tid, labelled.get(tid), name, labelled,
                                       r.stdout[-300:]))
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    failures, ran = [], 0
    for fmt in ("speedscope", "pprof"):
        r = subprocess.run([j, "record", "1", "--threads", "--format", fmt], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        if r.returncode != 1 or "--threads goes with --format collapsed or flamegraph" not in r.stderr:
            failures.append("record --threads --format %s: exit %d, %r (want 1 and why: %s is "
                            "per thread already)" % (fmt, r.returncode, r.stderr[:200], fmt))
    for python in PYTHONS + present(extra_pythons()):
        if not os.access(python, os.X_OK):
            part_missing("%s is not installed" % python)
            continue
        check(j, python, failures)
        ran += 1
    if failures:
        fail("\n".join(failures))
    if not ran:
        print("skip: none of %s is installed" % ", ".join(PYTHONS))
        return SKIP
    print("ok: %d interpreters name their threads as Python does" % ran)
    return 0


if __name__ == "__main__":
    sys.exit(main())
