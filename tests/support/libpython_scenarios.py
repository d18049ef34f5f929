"""The scenarios of CPython's Lib/test/test_gdb, written for our commands
(the promises libpython.py's py-bt, py-bt-full, py-up, py-down, py-print,
py-locals and py-list make), run by the gdb and the LLDB tests alike: the
scripts are tests/values/libpython_*.py. Each check appends one line per
broken promise to `failures`."""

import os
import re
import shutil
import subprocess
import tempfile

from extra_pythons import JIT_ON, gdb_args, jit_available
from values_target import TRUNCATED

HERE = os.path.dirname(os.path.abspath(__file__))
VALUES = os.path.join(HERE, "..", "values")
SAMPLE = os.path.realpath(os.path.join(VALUES, "libpython_sample.py"))
CCALL = os.path.realpath(os.path.join(VALUES, "libpython_ccall.py"))
GC = os.path.realpath(os.path.join(VALUES, "libpython_gc.py"))
GIL = os.path.realpath(os.path.join(VALUES, "libpython_gil.py"))
WRAPPER = os.path.realpath(os.path.join(VALUES, "libpython_wrapper.py"))
INSTANCES = os.path.realpath(os.path.join(VALUES, "libpython_instances.py"))
PATHS = ["order.oid", "order.items", "sub.a", "node.next.name", "order.nope"]
OUTPUT_CAP = 1024  # libpython.py's MAX_OUTPUT_LEN: py-print cuts there, then TRUNCATED
CONVENTIONS = ["meth_noargs", "meth_o", "meth_varargs", "meth_varargs_keywords",
               "meth_fastcall", "meth_fastcall_keywords"]
OWNERS = 4  # _testcapi, MethClass, MethClass(), MethStatic(): each calls every convention
ADDR = r"0x[0-9a-f]+"
JIT_WARM = 5000  # calls before the stop: past the JIT's warm-up (3,000 were not, on 3.15.2)
NOT_SELECTED = ("(the native frame running it could not be selected: the debugger's frame "
                "selection is unchanged)")
# A builtin as libpython.py shows it; a module's type is "module"
ID = r"<built-in method id of module object at remote %s>" % ADDR


def line_of(path, text, last=False):
    lines = open(path).read().splitlines()
    found = [i + 1 for i, line in enumerate(lines) if line.strip() == text]
    return found[-1] if last else found[0]


def frame_re(name, args, line):
    """py-bt-full's line for a frame of the sample, libpython's form."""
    return r"#(\d+) Frame %s, for file %s, line %d, in %s \(%s\)$" % (
        ADDR, re.escape(SAMPLE), line, re.escape(name), re.escape(args))


def expect(failures, label, what, got, patterns):
    """`got` (lines) must match `patterns` (regexes) line for line."""
    if len(got) != len(patterns) or not all(re.match(p + "$", g) for p, g in zip(patterns, got)):
        failures.append("%s: %s\n  got:  %s\n  want: %s" % (label, what, "\n        ".join(got),
                                                           "\n        ".join(patterns)))


def check_sample(debugger, dialect, python, label, env, failures, core=None):
    """CPython's backtrace, navigation, print, locals and list promises at a
    stop in builtin_id called by baz; `debugger(python, script, breaks,
    commands, env, core)` runs the debugger (on `core`, a core of that stop,
    when given), `dialect` names its own commands."""
    lines = {"baz": line_of(SAMPLE, "id(42)"), "bar": line_of(SAMPLE, "baz(a, b, c)"),
             "foo": line_of(SAMPLE, "bar(a=a, b=b, c=c)"),
             "<module>": line_of(SAMPLE, "foo(1, 2, 3)", last=True)}
    source = {"baz": "id(42)", "bar": "baz(a, b, c)", "foo": "bar(a=a, b=b, c=c)",
              "<module>": "foo(1, 2, 3)"}
    args = {"baz": "args=(1, 2, 3)", "bar": "a=1, b=2, c=3", "foo": "a=1, b=2, c=3",
            "<module>": ""}
    order = ["baz", "bar", "foo", "<module>"]
    commands = [("py-bt", "py-bt"), ("py-bt-full", "py-bt-full"), ("up1", "py-up"),
                ("frame1", dialect["frame"]), ("print args", "py-print args"),
                ("locals", "py-locals"),
                ("up2", "py-up"), ("locals2", "py-locals"), ("print len", "py-print len"),
                ("print name", "py-print __name__"), ("down1", "py-down"), ("down2", "py-down"),
                ("down3", "py-down"), ("list", "py-list"), ("list 1,3", "py-list 1,3"),
                ("list 9", "py-list 9"), ("verbose", "py-bt-full -v"), ("up6", "py-up 6"),
                ("mixed", "mixed-bt 3")]
    sections, raw = debugger(python, SAMPLE, ["builtin_id"], commands, env, core)
    got = lambda name: sections.get(name, ["<missing>: " + raw[-1500:]])  # noqa: E731

    bt = ["Traceback \\(most recent call first\\):", "  " + ID]
    for name in order:
        bt += ['  File "%s", line %d, in %s' % (re.escape(SAMPLE), lines[name], re.escape(name)),
               "    " + re.escape(source[name])]
    expect(failures, label, "py-bt", got("py-bt"), bt)
    # N: the native frame naming the call (cfunction_*; the C function
    # itself where the eval loop or JIT code calls it directly)
    full = [r"#\d+ " + ID]
    for name in order:
        full += [frame_re(name, args[name], lines[name]), "    " + re.escape(source[name])]
    expect(failures, label, "py-bt-full", got("py-bt-full"), full)
    # py-up from the builtin selects baz, and the native frame running it
    # (where the debugger's own unwinding reaches that frame: LLDB 19 does
    # not through every build, and then the command must say so)
    unselected = [n for n in ("up1", "up2", "down1")
                  if dialect.get("may_not_select") and got(n)[-1:] == [NOT_SELECTED]]
    for n in unselected:
        sections[n] = got(n)[:-1]
    expect(failures, label, "py-up from builtin_id", got("up1"), full[1:3])
    m = re.match(r"#(\d+) ", got("up1")[0])
    named = m and any(line.startswith(dialect["frame_line"] % m.group(1))
                      for line in got("frame1"))
    if "up1" not in unselected and not named:
        failures.append("%s: py-up did not select the frame it names: %s / %s"
                        % (label, got("up1")[:1], got("frame1")[:1]))
    expect(failures, label, "py-print args", got("print args"),
           [re.escape("local 'args' = (1, 2, 3)")])
    # each frame of the eval loop's run, outwards from the selected one; the
    # loop's variable follows args; in JIT code values are marked as possibly stale
    stale = r"(  \(may be stale: JIT code\))?"
    expect(failures, label, "py-locals", got("locals")[:2],
           ["Locals for baz", re.escape("args = (1, 2, 3)") + stale])
    expect(failures, label, "second py-up", got("up2"), full[3:5])
    abc = [v + stale for v in ("a = 1", "b = 2", "c = 3")]
    expect(failures, label, "py-locals after two py-up", got("locals2"),
           ["Locals for bar"] + abc + ["Locals for foo"] + abc + ["Locals for <module>"])
    expect(failures, label, "py-print len", got("print len"),
           [r"builtin 'len' = <built-in method len of module object at remote %s>" % ADDR])
    expect(failures, label, "py-print __name__", got("print name"),
           [r"global '__name__' = '__main__'"])
    expect(failures, label, "py-down", got("down1"), full[1:3])
    expect(failures, label, "py-down to the builtin", got("down2"), full[:1])
    expect(failures, label, "py-down at the bottom", got("down3"),
           ["Unable to find a newer python frame"])
    listing = open(SAMPLE).read().splitlines()

    def listed(start, end, mark):  # LLDB drops a message's trailing blanks
        return [re.escape(("%4s    %s" % ((">" if n == mark else "") + str(n),
                                          listing[n - 1])).rstrip()) + " *"
                for n in range(start, min(end, len(listing)) + 1)]
    expect(failures, label, "py-list", got("list"),
           listed(lines["baz"] - 5, lines["baz"] + 5, lines["baz"]))
    expect(failures, label, "py-list 1,3", got("list 1,3"), listed(1, 3, lines["baz"]))
    expect(failures, label, "py-list 9", got("list 9"), listed(9, 19, lines["baz"]))
    verbose = got("verbose")
    if not any(re.match(r"#\d+ Frame %s, code %s, for file .* in <module> \(\) \[entry\]$"
                        % (ADDR, ADDR), v) for v in verbose):
        failures.append("%s: py-bt-full -v has no code address and entry flag: %s"
                        % (label, verbose))
    expect(failures, label, "py-up past the outermost", got("up6"),
           ["Unable to find an older python frame"])
    if env and env.get("WARM") and not any("py::jit:baz" in line for line in got("mixed")):
        failures.append("%s: the warmed-up call does not run from JIT code:\n%s"
                        % (label, "\n".join(got("mixed"))))


def never_stopped(sections, label, where):
    """True, saying so, when the target ran to its end instead of stopping
    at the breakpoint in `where`: the debugger could not place it (a module
    without symbols: Debian's 3.15.2 _testcapi)."""
    text = " ".join(sections.get("continue", []))
    if "exited normally" in text or "exited with status" in text:
        print("skip %s on %s: the debugger's breakpoint in %s was never hit"
              % (where, label, where))
        return True
    return False


def check_states(debugger, dialect, python, label, failures):
    """py-bt and py-bt-full name a collection and a wait for the GIL (see
    check_sample)."""
    sections, raw = debugger(python, GC, ["builtin_id"],
                             [("break", dialect["break"] % "gc_collect_main"),
                              ("continue", "continue"), ("bt", "py-bt"), ("full", "py-bt-full")],
                             None, None)
    collect = r"<built-in method collect of module object at remote %s>" % ADDR
    if not never_stopped(sections, label, "gc_collect_main"):
        check_collection(sections, raw, collect, label, failures)
    check_gil(debugger, dialect, python, label, failures)


def check_collection(sections, raw, collect, label, failures):
    """A stop in gc_collect_main, called by gc.collect called by foo."""
    expect(failures, label, "py-bt in a collection", sections.get("bt", [raw[-1500:]])[:4],
           ["Traceback \\(most recent call first\\):", "  Garbage-collecting", "  " + collect,
            '  File "%s", line %d, in foo' % (re.escape(GC), line_of(GC, "collect()"))])
    expect(failures, label, "py-bt-full in a collection", sections.get("full", [raw[-1500:]])[:2],
           [r"#\d+ Garbage-collecting", r"#\d+ " + collect])


def check_gil(debugger, dialect, python, label, failures):
    """Spinning threads while the main thread is stopped wait for the GIL;
    py-bt -a and mixed-bt -a name each thread as threading does."""
    sections, raw = debugger(python, GIL, ["builtin_id"],
                             [("all", dialect["all"] % "py-bt"),
                              ("all full", dialect["all"] % "py-bt-full"),
                              ("every", "py-bt -a"), ("mixed every", "mixed-bt -a")], None, None)
    # py-bt -a heads each thread with its Python name (threading's)
    heads = sorted(re.findall(r'^Thread \d+ \(tid \d+, "([^"]*)"(, GIL holder)?',
                              "\n".join(sections.get("every", [])), re.M))
    want = [("MainThread", ", GIL holder")] + [("Thread-%d" % i, "") for i in range(1, 5)]
    if heads != want:
        failures.append("%s: py-bt -a heads the threads %s, not %s:\n%s"
                        % (label, heads, want, "\n".join(sections.get("every", [raw[-1500:]]))))
    mixed = sorted(re.findall(r'^thread #\d+, tid \d+, "([^"]*)"$',
                              "\n".join(sections.get("mixed every", [])), re.M))
    if mixed != sorted(name for name, _ in want):
        failures.append("%s: mixed-bt -a heads the threads %s, not %s:\n%s"
                        % (label, mixed, sorted(name for name, _ in want),
                           "\n".join(sections.get("mixed every", [raw[-1500:]]))[:3000]))
    waiting = r"  Waiting for the GIL\n  File \"%s\", line \d+, in Spinner.run\n" % re.escape(GIL)
    if not re.search(waiting, "\n".join(sections.get("all", [])) + "\n"):
        failures.append("%s: no thread's py-bt waits for the GIL in Spinner.run:\n%s"
                        % (label, "\n".join(sections.get("all", [raw[-1500:]]))))
    if not re.search(r"^#\d+ Waiting for the GIL\n#\d+ Frame %s, for file %s, line \d+, in "
                     r"Spinner.run \(self=" % (ADDR, re.escape(GIL)),
                     "\n".join(sections.get("all full", [])), re.M):
        failures.append("%s: no thread's py-bt-full waits for the GIL in Spinner.run:\n%s"
                        % (label, "\n".join(sections.get("all full", [raw[-1500:]]))))


def check_wrapper(debugger, dialect, python, label, failures):
    """py-bt and py-bt-full show a method-wrapper call as libpython does
    (see check_sample)."""
    sections, raw = debugger(python, WRAPPER, ["builtin_id"],
                             [("break", dialect["break"] % "wrapper_call"),
                              ("continue", "continue"), ("bt", "py-bt"), ("full", "py-bt-full"),
                              ("locals", "py-locals")],
                             None, None)
    wrapper = r"<method-wrapper '__init__' of MyList object at remote %s>" % ADDR
    if never_stopped(sections, label, "wrapper_call"):
        return
    expect(failures, label, "py-bt in a method-wrapper", sections.get("bt", [raw[-1500:]])[:3],
           ["Traceback \\(most recent call first\\):", "  " + wrapper,
            '  File "%s", line %d, in MyList.__init__'
            % (re.escape(WRAPPER), line_of(WRAPPER, "super(*[]).__init__()"))])
    # headed by the code object's name, as libpython's py-locals
    expect(failures, label, "py-locals in a method", sections.get("locals", [raw[-1500:]])[:2],
           ["Locals for __init__", "self = .+"])
    expect(failures, label, "py-bt-full in a method-wrapper",
           sections.get("full", [raw[-1500:]])[:2],
           [r"#\d+ " + wrapper, r"#\d+ Frame %s, for file %s, line \d+, in MyList.__init__ "
            r"\(self=.*\)" % (ADDR, re.escape(WRAPPER))])


def check_ccall(debugger, dialect, python, label, failures):
    """A Python function called from C (baz called by
    _testcapi.pyobject_vectorcall), then a stop in every PyCFunction calling
    convention of _testcapi, each called through every owner (see
    check_sample)."""
    baz = line_of(CCALL, "id(42)")
    commands = [("up1", "py-up"), ("up2", "py-up"), ("print c", "py-print c"),
                ("print a", "py-print a"), ("down", "py-down"),
                ("delete", dialect["delete"] % "builtin_id")]
    # placed once _testcapi is loaded (the sample imports it first)
    commands += [("break " + name, dialect["break"] % name) for name in CONVENTIONS]
    for i in range(len(CONVENTIONS) * OWNERS):
        commands += [("continue %d" % i, "continue"), ("where %d" % i, "bt 8"),
                     ("bt %d" % i, "py-bt"), ("full %d" % i, "py-bt-full")]
    sections, raw = debugger(python, CCALL, ["builtin_id"], commands, None, None)
    got = lambda name: sections.get(name, ["<missing>: " + raw[-1500:]])  # noqa: E731
    baz_line = r"#\d+ Frame %s, for file %s, line %d, in baz \(args=\(1, 2, 3\)\)" % (
        ADDR, re.escape(CCALL), baz)
    vectorcall = r"#\d+ <built-in method pyobject_vectorcall of module object at remote %s>" % ADDR
    unselected = [n for n in ("up1", "up2", "down")
                  if dialect.get("may_not_select") and got(n)[-1:] == [NOT_SELECTED]]
    for n in unselected:
        sections[n] = got(n)[:-1]
    expect(failures, label, "py-up", got("up1"), [baz_line, "    id\\(42\\)"])
    expect(failures, label, "py-up to the C function calling baz", got("up2"), [vectorcall])
    expect(failures, label, "py-print in bar's call", got("print c") + got("print a"),
           ["local 'c' = 3", "local 'a' = 1"])
    expect(failures, label, "py-down", got("down"), [baz_line, "    id\\(42\\)"])
    stopped_in = lambda i: re.search(r"[` ](meth_\w+)\b", " ".join(got("where %d" % i)))  # noqa
    if not stopped_in(0) and never_stopped({"continue": got("continue 0")}, label,
                                           "any meth_* function"):
        # no symbols for them: a stripped build's _testcapi
        return
    seen = []
    for i in range(len(CONVENTIONS) * OWNERS):
        m = stopped_in(i)
        if not m:
            stop = " ".join(got("continue %d" % i) + got("where %d" % i))
            failures.append("%s: stop %d is not in a meth_* function: %s"
                            % (label, i, stop[-300:]))
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
        # CPython promises #1 or #2 (its cfunction_* frame); #0 is the C function itself,
        # called directly by a specialized CALL (3.14+ in the eval loop, JIT code)
        if not full or not re.match(r"#[012] " + call + "$", full[0]):
            failures.append("%s: py-bt-full in %s (stop %d):\n  %s"
                            % (label, m.group(1), i, "\n  ".join(full)))
    if sorted(set(seen)) != sorted(CONVENTIONS):
        failures.append("%s: py-bt showed calls of %s, not every convention"
                        % (label, sorted(set(seen))))


def make_core(python, path, env=None):
    """Whether gdb wrote to `path` a core of `python` running the sample,
    stopped in builtin_id called by baz (after env's WARM calls when set)."""
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off"] + gdb_args([python]) + [
           "-ex", "set breakpoint pending on", "-ex", "break builtin_id"]
    if env and env.get("WARM"):
        cmd += ["-ex", "ignore 1 %s" % env["WARM"]]
    cmd += ["-ex", "run", "-ex", "gcore %s" % path, "-ex", "kill", "--args", python, SAMPLE]
    try:
        subprocess.run(cmd, env=dict(os.environ, **(env or {})), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=600)
    except subprocess.TimeoutExpired:
        return False
    return os.path.exists(path)


def check_sample_core(debugger, dialect, python, label, env, failures):
    """check_sample's promises on a core of the same stop (gdb's gcore)."""
    folder = tempfile.mkdtemp(prefix="libpython-core-")
    try:
        core = os.path.join(folder, "core")
        if not make_core(python, core, env):
            failures.append("%s: gdb wrote no core of the sample's stop" % label)
            return
        check_sample(debugger, dialect, python, label + " (core)", env, failures, core)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def check_instances(debugger, dialect, python, label, failures):
    """py-print shows an instance as libpython does, `<Order(oid=1,
    items=['x']) at remote 0x...>`, wherever its attributes live (inline
    values, a dict, __slots__ of its class and bases), a self-reference as
    <...>, a container whole however deep it nests, and cuts only at
    libpython's 1,024 characters; `py-print NAME.ATTR...` follows attributes;
    py-locals and the frame line render values as py-print does."""
    names = ["order", "viadict", "slotted", "sub", "wide", "node", "deep", "long"]
    sections, raw = debugger(python, INSTANCES, ["builtin_id"],
                             [(n, "py-print " + n) for n in names + PATHS] +
                             [("full", "py-bt-full"), ("locals", "py-locals")], None, None)
    at = r" at remote %s>" % ADDR
    wide = ", ".join("a%d=%d" % (i, i) for i in range(40))
    cut = repr(list(range(1000)))[:OUTPUT_CAP] + TRUNCATED
    want = {"order": r"<Order\(oid=1, items=\['x'\]\)" + at,
            "viadict": r"<Order\(oid=2, items=\[\], extra=3\)" + at,
            "slotted": r"<Slotted\(a=1, b='two'\)" + at,
            "sub": r"<Sub\(c=4, a=1, b='two'\)" + at,
            "wide": r"<Wide\(%s\)" % wide + at,
            "node": r"<Node\(name='n', next=<\.\.\.>\)" + at,
            "deep": re.escape("{'outer': {'inner': (1, [2, {'deep': 'end'}])}}"),
            "long": re.escape(cut)}
    for name in names:
        expect(failures, label, "py-print " + name, sections.get(name, [raw[-1500:]]),
               ["local %s = %s" % (re.escape(repr(name)), want[name])])
    # the frame line renders values as py-print does
    frame = [line for line in sections.get("full", []) if "in hold (" in line]
    expect(failures, label, "py-bt-full's line of a frame with instance arguments", frame,
           [r"#\d+ Frame %s, for file %s, line \d+, in hold \(%s\)" % (
               ADDR, re.escape(INSTANCES), ", ".join("%s=%s" % (n, want[n]) for n in names))])
    expect(failures, label, "py-locals of a frame with instances",
           sections.get("locals", [raw[-1500:]])[:len(names) + 1],
           ["Locals for hold"] + ["%s = %s" % (n, want[n]) for n in names])
    paths = {"order.oid": "local 'order.oid' = 1",
             "order.items": r"local 'order.items' = \['x'\]",
             "sub.a": "local 'sub.a' = 1", "node.next.name": "local 'node.next.name' = 'n'",
             "order.nope": "'order' has no attribute 'nope'"}
    for path, line in paths.items():
        expect(failures, label, "py-print " + path, sections.get(path, [raw[-1500:]]), [line])


def label_of(python):
    """"p315/python3.15": the interpreter's build folder and name."""
    return os.path.basename(os.path.dirname(os.path.dirname(python))) + "/" + \
        os.path.basename(python)


def check_all(debugger, dialect, python, label, failures):
    """Every scenario both debuggers run: the sample, live and on a core
    (also with the JIT on and warm where the interpreter has a JIT), a
    collection, threads waiting for the GIL, a method-wrapper, a C call and
    the calling conventions, instances and containers."""
    envs = [(label, None)]
    if jit_available(python):
        envs.append((label + " (JIT on, warm)", dict(JIT_ON, WARM=str(JIT_WARM))))
    for name, env in envs:
        check_sample(debugger, dialect, python, name, env, failures)
        check_sample_core(debugger, dialect, python, name, env, failures)
    check_states(debugger, dialect, python, label, failures)
    check_wrapper(debugger, dialect, python, label, failures)
    check_ccall(debugger, dialect, python, label, failures)
    check_instances(debugger, dialect, python, label, failures)
