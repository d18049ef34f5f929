"""Shared by the gdb and lldb value tests: start tests/values/corpus_target.py
under an interpreter, stopped in report() with its expected reprs, and
compare a debugger's py-locals lines with them."""

import json
import os
import re
import subprocess

from extra_pythons import JIT_ON, WHY_NONE, extra_pythons, jit_available, jit_enabled
from extra_pythons import present as present_pythons

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "values", "corpus_target.py")
BUILTIN_CALL = os.path.join(HERE, "..", "values", "builtin_target.py")
GC_STOP = os.path.join(HERE, "..", "values", "gc_target.py")
# py-bt-full's level for BUILTIN_CALL's time.sleep, as libpython.py shows it
BUILTIN_SLEEP = r"#\d+ <built-in method sleep of module object at remote 0x[0-9a-f]+>$"
# what libpython.py appends to a value's text it cut at its 1,024 characters
TRUNCATED = "...(truncated)"
# repr() of an instance whose class keeps object's repr
DEFAULT_REPR = re.compile(r"<[\w.]+ object at 0x[0-9a-f]+>$")


# An interpreter spec's environment entries: NAME=VALUE among its parts.
_ENV_PART = re.compile(r"^[A-Z_][A-Z0-9_]*=")


def command(spec):
    """(argv, environment) of an interpreter spec PYTHON[,PART...]: a part
    NAME=VALUE (PYTHON_JIT=1) goes into the environment, the others are
    arguments."""
    python, *parts = spec.split(",")
    env = dict(os.environ, **dict(p.split("=", 1) for p in parts if _ENV_PART.match(p)))
    return [python] + [p for p in parts if not _ENV_PART.match(p)], env


def label_of(spec):
    """A spec's short name: the interpreter's file name and its parts."""
    python, *parts = spec.split(",")
    return " ".join([os.path.basename(python)] + parts)


class Target:
    """The corpus target, waiting on its stdin; `data` is what it printed."""

    def __init__(self, python_spec, script=CORPUS):
        """`script` other than the corpus: one that prints a line when it is
        about to stop (`data` is then that line)."""
        argv, env = command(python_spec)
        self.proc = subprocess.Popen(argv + [script], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)
        line = self.proc.stdout.readline()
        self.data = json.loads(line) if script == CORPUS else line
        self.pid = self.proc.pid
        if script != CORPUS:
            import time
            time.sleep(0.3)  # from its print into the call that stops it

    def frame_locals(self, qualname):
        """(name, text) of each local of the frame as py-locals shows it:
        its repr(), but an instance whose class keeps object's repr
        (`<__main__.Plain object at 0x...>`) in libpython's form,
        `<Plain(x=1, y='why') at remote 0x...>`, from the attributes the
        target printed."""
        for f in self.data["frames"]:
            if f["qualname"] == qualname:
                return [(name, libpython_instance(f["instances"][name])
                         if name in f["instances"] and DEFAULT_REPR.match(text) else text)
                        for name, text in f["locals"]]
        raise KeyError(qualname)

    def close(self):
        self.proc.kill()
        self.proc.wait()


def libpython_instance(parts):
    """libpython's text of an instance from the target's [class name, id,
    [[attribute, repr], ...]]."""
    name, address, attrs = parts
    return "<%s(%s) at remote 0x%x>" % (name, ", ".join("%s=%s" % (a, r) for a, r in attrs),
                                        address)


def glob_match(ours, theirs):
    """Our rendering equals Python's repr within the documented truncation:
    the parts between our "..." marks appear in order, the first as a prefix
    and the last as a suffix; a text cut at libpython's cap (ending in
    TRUNCATED) is a prefix."""
    if ours.endswith(TRUNCATED):
        return theirs.startswith(ours[:-len(TRUNCATED)])
    parts = ours.split("...")
    if len(parts) == 1:
        return ours == theirs
    if not theirs.startswith(parts[0]) or not theirs.endswith(parts[-1]):
        return False
    at = len(parts[0])
    for part in parts[1:-1]:
        at = theirs.find(part, at)
        if at < 0:
            return False
        at += len(part)
    return at <= len(theirs) - len(parts[-1])


def check_locals(lines, expected):
    """Problems (strings) comparing the first frame's `name = repr` lines
    of py-locals (up to the next `Locals for` header) with the target's
    (name, repr) pairs; unbound lines are skipped (Python omits them)."""
    problems = []
    got = []
    for i, line in enumerate(lines):
        if line.startswith("Locals for ") and i > 0:
            break
        if " = " not in line or line.endswith("= <unbound>"):
            continue
        name, text = line.split(" = ", 1)
        got.append((name, text))
    if [n for n, _ in got] != [n for n, _ in expected]:
        return ["names %s, python %s" % ([n for n, _ in got], [n for n, _ in expected])]
    for (name, ours), (_, theirs) in zip(got, expected):
        if not glob_match(ours, theirs):
            problems.append("%s: ours %s, python %s" % (name, ours[:200], theirs[:200]))
    return problems


SKIP = 77


def interpreters(specs, jit_too=False):
    """The interpreter specs to run ("extra": $JITUNWIND_EXTRA_PYTHONS; with
    `jit_too` each again with its JIT on where only the environment turns it
    on, as on 3.15), or None with the reason printed when there is nothing
    to run."""
    if specs == ["extra"]:
        specs = extra_pythons()
        if not specs:
            print("SKIP: " + WHY_NONE)
            return None
        specs = present_pythons(specs)  # a named build that is missing fails
        return [s for p in specs for s in
                ([p, p + "," + ",".join("%s=%s" % kv for kv in JIT_ON.items())]
                 if jit_too and not jit_enabled(p) and jit_available(p) else [p])]
    present = []
    for spec in specs:
        if os.access(spec.split(",")[0], os.X_OK):
            present.append(spec)
        else:
            print("skip %s: not installed" % spec)
    if not present:
        print("SKIP: none of the interpreters is installed")
        return None
    return present


def run_all(specs, run, failures, jit_too=False):
    """Run `run(spec)` for each interpreter (interpreters(specs, jit_too));
    the exit status (77: skipped)."""
    present = interpreters(specs, jit_too)
    if present is None:
        return SKIP
    for spec in present:
        run(spec)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


def gcore(pid, core, timeout=180):
    """Write a core of `pid` with gdb's gcore: True when written."""
    try:
        subprocess.run(["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
                        "-iex", "set auto-load python-scripts off",
                        "-ex", "gcore %s" % core, "-p", str(pid)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return os.path.exists(core)


class Checker:
    """One debugger run's command outputs (`sections`: name -> lines) and
    the failures found in them."""

    def __init__(self, label, sections, raw, failures):
        self.label, self.sections, self.raw, self.failures = label, sections, raw, failures

    def fail(self, message):
        self.failures.append("%s: %s" % (self.label, message))

    def need(self, name):
        if name not in self.sections:
            self.fail("no output for %s:\n%s" % (name, self.raw[-2000:]))
            return []
        return self.sections[name]

    def common(self, target):
        """What every debugger must show at corpus_target's stop, after
        py-up (inner), py-up (outer), py-up 99 and py-down (inner again)."""
        need, fail = self.need, self.fail
        bt = need("py-bt-full")
        if not any("in inner (arg=7, flag=True, rest=(1, 2), kw={'extra': 'kw'})" in l
                   for l in bt):
            fail("py-bt-full: inner's arguments missing:\n" + "\n".join(bt))
        if not any(" in outer (n=7)" in l for l in bt):
            fail("py-bt-full: outer's arguments missing:\n" + "\n".join(bt))
        up = need("py-up")
        if not up or " in inner (" not in up[0]:
            fail("py-up did not move to inner: %s" % up)
        for problem in check_locals(need("py-locals inner"), target.frame_locals("inner")):
            fail("py-locals in inner: " + problem)
        for problem in check_locals(need("py-locals outer"), target.frame_locals("outer")):
            fail("py-locals in outer: " + problem)
        if not re.match(r"builtin 'len' = <built-in method len of module object at remote "
                        r"0x[0-9a-f]+>$", (need("py-print len") or [""])[0]):
            fail("py-print len: %s" % self.sections.get("py-print len"))
        expect = {"py-print captured": ["local 'captured' = 'cell'"],
                  "py-print nope": ["'nope' not found"],
                  "py-up 99": ["Unable to find an older python frame"]}
        for name, lines in expect.items():
            if need(name) != lines:
                fail("%s: %s" % (name, self.sections.get(name)))
        if not any(re.match(r"^ *>\d+ +report\(values\)$", l) for l in need("py-list")):
            fail("py-list does not mark inner's line: %s" % self.sections.get("py-list"))
        down = need("py-down")
        if not down or " in inner (" not in down[0]:
            fail("py-down did not come back to inner: %s" % down)
