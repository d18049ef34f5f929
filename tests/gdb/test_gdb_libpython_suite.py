#!/usr/bin/env python3
"""gdb: the promises CPython's Lib/test/test_gdb makes of libpython.py's
py-bt, py-bt-full, py-up, py-down, py-print, py-locals and py-list, kept by
ours, in its scenarios: a sample stopped in builtin_id called by baz
(tests/values/libpython_sample.py), a Python function called from C and
every PyCFunction calling convention of _testcapi
(tests/values/libpython_ccall.py). JIT-capable builds of the extended
matrix run the sample with their JIT on and warmed up, so that baz calls
the builtin from JIT code.

Usage: test_gdb_libpython_suite.py BUILD_DIR REPO_DIR PYTHON
  PYTHON "extra": each interpreter of $JITUNWIND_EXTRA_PYTHONS. Exit 77 when
  none exists."""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from extra_pythons import JIT_ON, gdb_args, jit_available  # noqa: E402
from values_target import run_all  # noqa: E402

VALUES = os.path.join(HERE, "..", "values")
SAMPLE = os.path.realpath(os.path.join(VALUES, "libpython_sample.py"))
CCALL = os.path.realpath(os.path.join(VALUES, "libpython_ccall.py"))
GC = os.path.realpath(os.path.join(VALUES, "libpython_gc.py"))
GIL = os.path.realpath(os.path.join(VALUES, "libpython_gil.py"))
CONVENTIONS = ["meth_noargs", "meth_o", "meth_varargs", "meth_varargs_keywords",
               "meth_fastcall", "meth_fastcall_keywords"]
OWNERS = 4  # _testcapi, MethClass, MethClass(), MethStatic(): each calls every convention
ADDR = r"0x[0-9a-f]+"
# A builtin as libpython.py shows it; a module's type is "module"
ID = r"<built-in method id of module object at remote %s>" % ADDR

failures = []


def gdb(build, repo, python, script, breaks, commands, env=None):
    """{name: lines} of each named command, gdb running `script` under
    `python` to its first breakpoint in `breaks`."""
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off"] + gdb_args([python]) + [
           "-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % repo,
           "-ex", "set breakpoint pending on"]
    for b in breaks:
        cmd += ["-ex", "break %s" % b]
    cmd += ["-ex", "run"]
    for name, command in commands:
        cmd += ["-ex", "echo <<%s>>\\n" % name, "-ex", command, "-ex", "echo <<end>>\\n"]
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"), **(env or {}))
    out = subprocess.run(cmd + ["--args", python, script], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300).stdout
    sections = {m.group(1): m.group(2).splitlines()
                for m in re.finditer(r"<<([^>]+)>>\n(.*?)<<end>>\n", out, re.S)}
    return sections, out


def line_of(path, text, last=False):
    lines = open(path).read().splitlines()
    found = [i + 1 for i, line in enumerate(lines) if line.strip() == text]
    return found[-1] if last else found[0]


def frame_re(name, args, line):
    """py-bt-full's line for a frame of the sample, libpython's form."""
    return r"#(\d+) Frame %s, for file %s, line %d, in %s \(%s\)$" % (
        ADDR, re.escape(SAMPLE), line, re.escape(name), re.escape(args))


def expect(label, what, got, patterns):
    """`got` (lines) must match `patterns` (regexes) line for line."""
    if len(got) != len(patterns) or not all(re.match(p + "$", g) for p, g in zip(patterns, got)):
        failures.append("%s: %s\n  got:  %s\n  want: %s" % (label, what, "\n        ".join(got),
                                                           "\n        ".join(patterns)))


def check_sample(build, repo, python, label, env):
    lines = {"baz": line_of(SAMPLE, "call(42)"), "bar": line_of(SAMPLE, "baz(a, b, c)"),
             "foo": line_of(SAMPLE, "bar(a=a, b=b, c=c)"),
             "<module>": line_of(SAMPLE, "foo(1, 2, 3)", last=True)}
    source = {"baz": "call(42)", "bar": "baz(a, b, c)", "foo": "bar(a=a, b=b, c=c)",
              "<module>": "foo(1, 2, 3)"}
    args = {"baz": "args=(1, 2, 3)", "bar": "a=1, b=2, c=3", "foo": "a=1, b=2, c=3",
            "<module>": ""}
    order = ["baz", "bar", "foo", "<module>"]
    commands = [("py-bt", "py-bt"), ("py-bt-full", "py-bt-full"), ("up1", "py-up"),
                ("frame1", "frame"), ("print args", "py-print args"), ("locals", "py-locals"),
                ("up2", "py-up"), ("print len", "py-print len"),
                ("print name", "py-print __name__"), ("down1", "py-down"), ("down2", "py-down"),
                ("down3", "py-down"), ("list", "py-list"), ("list 1,3", "py-list 1,3"),
                ("list 9", "py-list 9"), ("verbose", "py-bt-full -v"), ("up6", "py-up 6")]
    sections, raw = gdb(build, repo, python, SAMPLE, ["builtin_id"], commands, env)
    got = lambda name: sections.get(name, ["<missing>: " + raw[-1500:]])  # noqa: E731

    bt = ["Traceback \\(most recent call first\\):", "  " + ID]
    for name in order:
        bt += ['  File "%s", line %d, in %s' % (re.escape(SAMPLE), lines[name], re.escape(name)),
               "    " + re.escape(source[name])]
    expect(label, "py-bt", got("py-bt"), bt)
    full = [r"#[12] " + ID]
    for name in order:
        full += [frame_re(name, args[name], lines[name]), "    " + re.escape(source[name])]
    expect(label, "py-bt-full", got("py-bt-full"), full)
    # py-up from the builtin selects baz, and the native frame running it
    expect(label, "py-up from builtin_id", got("up1"), full[1:3])
    m = re.match(r"#(\d+) ", got("up1")[0])
    if not m or not got("frame1") or not got("frame1")[0].startswith("#%s " % m.group(1)):
        failures.append("%s: py-up did not select the frame it names: %s / %s"
                        % (label, got("up1")[:1], got("frame1")[:1]))
    expect(label, "py-print args", got("print args"), [re.escape("local 'args' = (1, 2, 3)")])
    expect(label, "py-locals", got("locals"), [re.escape("args = (1, 2, 3)")])
    expect(label, "second py-up", got("up2"), full[3:5])
    expect(label, "py-print len", got("print len"),
           [r"builtin 'len' = <built-in method len of module object at remote %s>" % ADDR])
    expect(label, "py-print __name__", got("print name"), [r"global '__name__' = '__main__'"])
    expect(label, "py-down", got("down1"), full[1:3])
    expect(label, "py-down to the builtin", got("down2"), full[:1])
    expect(label, "py-down at the bottom", got("down3"), ["Unable to find a newer python frame"])
    listing = open(SAMPLE).read().splitlines()

    def listed(start, end, mark):
        return [re.escape("%4s    %s" % ((">" if n == mark else "") + str(n), listing[n - 1]))
                for n in range(start, min(end, len(listing)) + 1)]
    expect(label, "py-list", got("list"), listed(lines["baz"] - 5, lines["baz"] + 5, lines["baz"]))
    expect(label, "py-list 1,3", got("list 1,3"), listed(1, 3, lines["baz"]))
    expect(label, "py-list 9", got("list 9"), listed(9, 19, lines["baz"]))
    verbose = got("verbose")
    if not any(re.match(r"#\d+ Frame %s, code %s, for file .* in <module> \(\) \[entry\]$"
                        % (ADDR, ADDR), v) for v in verbose):
        failures.append("%s: py-bt-full -v has no code address and entry flag: %s"
                        % (label, verbose))
    expect(label, "py-up past the outermost", got("up6"), ["Unable to find an older python frame"])


def check_ccall(build, repo, python, label):
    baz = line_of(CCALL, "id(42)")
    commands = [("up1", "py-up"), ("up2", "py-up"), ("print c", "py-print c"),
                ("print a", "py-print a"), ("down", "py-down"), ("delete", "delete 1")]
    for i in range(len(CONVENTIONS) * OWNERS):
        commands += [("continue %d" % i, "continue"), ("bt %d" % i, "py-bt"),
                     ("full %d" % i, "py-bt-full")]
    sections, raw = gdb(build, repo, python, CCALL, ["builtin_id"] + CONVENTIONS, commands)
    got = lambda name: sections.get(name, ["<missing>: " + raw[-1500:]])  # noqa: E731
    baz_line = r"#\d+ Frame %s, for file %s, line %d, in baz \(args=\(1, 2, 3\)\)" % (
        ADDR, re.escape(CCALL), baz)
    vectorcall = r"#\d+ <built-in method pyobject_vectorcall of module object at remote %s>" % ADDR
    expect(label, "py-up", got("up1"), [baz_line, "    id\\(42\\)"])
    expect(label, "py-up to the C function calling baz", got("up2"), [vectorcall])
    expect(label, "py-print in bar's call", got("print c") + got("print a"),
           ["local 'c' = 3", "local 'a' = 1"])
    expect(label, "py-down", got("down"), [baz_line, "    id\\(42\\)"])
    if "exited normally" in " ".join(got("continue 0")) and \
            not re.search(r"Breakpoint [\d.]+, meth_", raw):
        # gdb could not place them: _testcapi without symbols (a stripped build's)
        print("skip the calling conventions on %s: gdb found no meth_* function in _testcapi"
              % label)
        return
    seen = []
    for i in range(len(CONVENTIONS) * OWNERS):
        stop = " ".join(got("continue %d" % i))
        m = re.search(r"Breakpoint [\d.]+, (meth_\w+) ", stop)
        if not m:
            failures.append("%s: stop %d is not in a meth_* function: %s" % (label, i, stop[-300:]))
            break
        # a compiler may fold functions of one body into one (meth_o, meth_varargs):
        # the stop names the breakpoint, the level the builtin called
        call = r"<built-in (method (meth_\w+) of [\w.]+ object at remote %s|function (meth_\w+))>" \
            % ADDR
        bt, full = got("bt %d" % i), got("full %d" % i)
        called = re.match("  " + call + "$", bt[1]) if len(bt) > 1 else None
        if called:
            seen.append(called.group(2) or called.group(3))
        if len(bt) < 3 or not called or \
                not bt[2].startswith('  File "%s", line' % CCALL):
            failures.append("%s: py-bt in %s (stop %d):\n  %s" % (label, m.group(1), i,
                                                                 "\n  ".join(bt)))
        if not full or not re.match(r"#[12] " + call + "$", full[0]):
            failures.append("%s: py-bt-full in %s (stop %d):\n  %s"
                            % (label, m.group(1), i, "\n  ".join(full)))
    if sorted(set(seen)) != sorted(CONVENTIONS):
        failures.append("%s: py-bt showed calls of %s, not every convention"
                        % (label, sorted(set(seen))))


def check_states(build, repo, python, label):
    """py-bt and py-bt-full name a collection and a wait for the GIL."""
    sections, raw = gdb(build, repo, python, GC, ["builtin_id"],
                        [("break", "break deduce_unreachable"), ("continue", "continue"),
                         ("bt", "py-bt"), ("full", "py-bt-full")])
    collect = r"<built-in method collect of module object at remote %s>" % ADDR
    expect(label, "py-bt in a collection", sections.get("bt", [raw[-1500:]])[:4],
           ["Traceback \\(most recent call first\\):", "  Garbage-collecting", "  " + collect,
            '  File "%s", line %d, in foo' % (re.escape(GC), line_of(GC, "collect()"))])
    expect(label, "py-bt-full in a collection", sections.get("full", [raw[-1500:]])[:2],
           [r"#\d+ Garbage-collecting", r"#\d+ " + collect])
    sections, raw = gdb(build, repo, python, GIL, ["builtin_id"],
                        [("all", "thread apply all py-bt"),
                         ("all full", "thread apply all py-bt-full")])
    waiting = r"  Waiting for the GIL\n  File \"%s\", line \d+, in Spinner.run\n" % re.escape(GIL)
    if not re.search(waiting, "\n".join(sections.get("all", [])) + "\n"):
        failures.append("%s: no thread's py-bt waits for the GIL in Spinner.run:\n%s"
                        % (label, "\n".join(sections.get("all", [raw[-1500:]]))))
    if not re.search(r"^#\d+ Waiting for the GIL\n#\d+ Frame %s, for file %s, line \d+, in "
                     r"Spinner.run \(self=" % (ADDR, re.escape(GIL)),
                     "\n".join(sections.get("all full", [])), re.M):
        failures.append("%s: no thread's py-bt-full waits for the GIL in Spinner.run:\n%s"
                        % (label, "\n".join(sections.get("all full", [raw[-1500:]]))))


def run(build, repo, python):
    label = os.path.basename(os.path.dirname(os.path.dirname(python))) + "/" + \
        os.path.basename(python)
    check_sample(build, repo, python, label, None)
    if jit_available(python):
        check_sample(build, repo, python, label + " (JIT on, warm)", dict(JIT_ON, WARM="3000"))
    check_ccall(build, repo, python, label)
    check_states(build, repo, python, label)
    print("checked: %s" % label)


def main():
    build, repo, spec = sys.argv[1], sys.argv[2], sys.argv[3]
    return run_all([spec], lambda p: run(build, repo, p), failures)


if __name__ == "__main__":
    sys.exit(main())
