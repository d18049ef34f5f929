"""py-bt, mixed-bt and jit-ranges for LLDB. Each prints one clear line
instead of raising when something is missing."""

import linecache
import shlex


import jitunwind as ju

from . import target as tgt
from .walk import format_lines, walk_thread


def _threads(process, all_threads):
    if all_threads:
        return list(process)
    return [process.GetSelectedThread()]


class _Command:
    NAME = ""
    HELP = ""

    def __init__(self, debugger, internal_dict):
        pass

    def get_short_help(self):
        return self.HELP

    def __call__(self, debugger, command, exe_ctx, result):
        try:
            args = shlex.split(command)
            process = exe_ctx.GetProcess()
            if not process or not process.IsValid():
                result.AppendMessage("jitunwind: %s: no process" % self.NAME)
                return
            self.run(tgt.state_for(process), process, args, result)
        except Exception as exc:  # never raise into lldb
            result.AppendMessage("jitunwind: %s: %s" % (self.NAME, exc))


def _append_python_warning(state, result):
    warning = state.python_warning()
    if warning:
        result.AppendMessage("note: %s" % warning)


class PyBt(_Command):
    NAME = "py-bt"
    HELP = "Python frames, innermost first, with file:line (-a: every thread)."

    def run(self, state, process, args, result):
        for thread in _threads(process, "-a" in args or "--all" in args):
            if len(process) > 1 or "-a" in args:
                result.AppendMessage("Thread %d (tid %d):" % (thread.GetIndexID(), thread.GetThreadID()))
            frames, err = state.python_frames(thread.GetThreadID())
            if not frames and err is None:
                result.AppendMessage("No Python frames in this thread.")
                continue
            result.AppendMessage("Traceback (most recent call first):")
            for f in frames:
                line = f.line if f.line > 0 else "?"
                result.AppendMessage('  File "%s", line %s, in %s' % (
                    f.filename, line, ju.python_label(f)[len("[py] "):]))
                source = linecache.getline(f.filename, f.line).strip() if f.line > 0 else ""
                if source:
                    result.AppendMessage("    " + source)
            if err is not None:
                result.AppendMessage("  (Python frame chain cut short: %s)" % err)
        _append_python_warning(state, result)


class MixedBt(_Command):
    NAME = "mixed-bt"
    HELP = ("Native and Python frames interleaved, walked by libjitunwind through JIT and "
            "trampoline code (-a: every thread).")

    def run(self, state, process, args, result):
        for thread in _threads(process, "-a" in args or "--all" in args):
            result.AppendMessage("thread #%d, tid %d" % (thread.GetIndexID(), thread.GetThreadID()))
            lines, notes = walk_thread(state, thread)
            for text in format_lines(lines):
                result.AppendMessage(text)
            for note in notes:
                result.AppendMessage("(%s)" % note)
        _append_python_warning(state, result)


class JitRanges(_Command):
    NAME = "jit-ranges"
    HELP = "Registered JIT and trampoline ranges: start, end, kind, rule, origin, name."

    def run(self, state, process, args, result):
        ranges = state.registry.ranges()
        if not ranges:
            result.AppendMessage("No JIT or trampoline ranges registered.")
        else:
            result.AppendMessage("%-18s %-18s %-10s %-16s %-10s %s" % (
                "Start", "End", "Kind", "Rule", "Origin", "Name"))
            for r in ranges:
                result.AppendMessage("%#018x %#018x %-10s %-16s %-10s %s" % (
                    r.start, r.end, ju.KIND_NAMES.get(r.kind, "?"), ju.rule_text(r),
                    ju.ORIGIN_NAMES.get(r.origin, "?"), r.name))
        for note in state.notes:
            result.AppendMessage("note: %s" % note)


def register(debugger, package):
    for cls in (PyBt, MixedBt, JitRanges):
        debugger.HandleCommand("command script add -o -c %s.commands.%s %s"
                               % (package, cls.__name__, cls.NAME))
    # -x: the function and module names are regular expressions (any CPython
    # executable or libpython).
    debugger.HandleCommand(
        "frame recognizer add -x -f false -l %s.recognizer.EvalFrameRecognizer "
        "-n '^_PyEval_EvalFrameDefault$' -s '^(lib)?python3'" % package)
