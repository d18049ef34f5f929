"""py-bt, py-bt-full, mixed-bt and `info jit-ranges`. Each prints one clear
line instead of raising when something is missing."""

import linecache

import gdb

import jitunwind as ju

from jitunwind import python_flags_text, python_label, range_label


def _source_line(filename, line):
    if not filename or line <= 0:
        return None
    text = linecache.getline(filename, line)
    return text.strip() or None


class _Command(gdb.Command):
    def __init__(self, plugin, name, klass):
        super().__init__(name, klass)
        self._plugin = plugin

    def invoke(self, arg, from_tty):
        try:
            self.run(arg)
        except Exception as exc:  # never raise into gdb
            print("jitunwind: %s: %s" % (self.NAME, exc))

    def _python_frames_or_say_none(self):
        """(frames, err), or None after printing why there is nothing to show."""
        frames, err = self._python_frames()
        if not frames and err is None:
            print("No Python frames in this thread.")
            return None
        return frames, err

    def _python_frames(self):
        state = self._plugin.state_for_command()
        if state is None:
            raise RuntimeError("no process")
        thread = gdb.selected_thread()
        if thread is None:
            raise RuntimeError("no thread selected")
        frames, err = state.python_frames(thread.ptid[1])
        warning = state.pyreader().warning if frames else None
        if warning:
            print("note: %s" % warning)
        return frames, err


class PyBt(_Command):
    NAME = "py-bt"
    """Python frames of the selected thread, innermost first, with file:line."""

    def __init__(self, plugin):
        super().__init__(plugin, self.NAME, gdb.COMMAND_STACK)

    def run(self, arg):
        found = self._python_frames_or_say_none()
        if found is None:
            return
        frames, err = found
        print("Traceback (most recent call first):")
        for f in frames:
            line = f.line if f.line > 0 else "?"
            print('  File "%s", line %s, in %s' % (f.filename, line,
                                                   python_label(f)[len("[py] "):]))
            source = _source_line(f.filename, f.line)
            if source:
                print("    " + source)
        if err is not None:
            print("  (Python frame chain cut short: %s)" % err)


class PyBtFull(_Command):
    NAME = "py-bt-full"
    """Python frames with their addresses and eval-loop grouping."""

    def __init__(self, plugin):
        super().__init__(plugin, self.NAME, gdb.COMMAND_STACK)

    def run(self, arg):
        found = self._python_frames_or_say_none()
        if found is None:
            return
        frames, err = found
        for i, f in enumerate(frames):
            flags = python_flags_text(f)
            print("#%d Frame %#x, code %#x, for file %s, line %s, in %s%s" % (
                i, f.address, f.code, f.filename, f.line if f.line > 0 else "?", f.qualname,
                " [%s]" % flags if flags else ""))
        if err is not None:
            print("(Python frame chain cut short: %s)" % err)


class MixedBt(_Command):
    NAME = "mixed-bt"
    """Native and Python frames interleaved (what `bt` shows with the frame
    filter, in a compact form that does not depend on frame filters)."""

    def __init__(self, plugin):
        super().__init__(plugin, self.NAME, gdb.COMMAND_STACK)

    def run(self, arg):
        state = self._plugin.state_for_command()
        frames = []
        frame = gdb.newest_frame()
        limit = int(arg) if arg.strip() else 4096
        while frame is not None and len(frames) < limit:
            frames.append(frame)
            frame = frame.older()
        roles, labels = [], []
        for frame in frames:
            pc = frame.pc()
            rng = state.lookup(pc if frame.level() == 0 else pc - 1) if state else None
            if rng is not None:
                roles.append(ju.ROLE_JIT if rng.kind == ju.KIND_JIT else ju.ROLE_TRAMPOLINE)
                labels.append(range_label(rng))
            else:
                name = frame.name() if frame.type() == gdb.NORMAL_FRAME else None
                role = ju.native_role(name)
                roles.append(role if role == ju.ROLE_EVAL else ju.ROLE_OTHER)
                labels.append(frame.name() or "??")
        try:
            pyframes, err = self._python_frames()
        except Exception as exc:
            pyframes, err = [], exc
        for kind, index, anchor in ju.mix(roles, pyframes):
            if kind == ju.MIXED_NATIVE:
                f = frames[index]
                sal = f.find_sal()
                where = ""
                if sal.symtab is not None:
                    where = " at %s:%d" % (sal.symtab.filename, sal.line)
                print("#%-3d %#018x in %s%s" % (index, f.pc(), labels[index], where))
            else:
                p = pyframes[index]
                suffix = "" if anchor is not None else " (no matching native frame)"
                print("      %s at %s:%s%s" % (python_label(p), p.filename,
                                              p.line if p.line > 0 else "?", suffix))
        if err is not None:
            print("(Python frames: %s)" % err)


class InfoJitRanges(_Command):
    NAME = "info jit-ranges"
    """Registered JIT and trampoline ranges: start, end, kind, rule, origin, name."""

    def __init__(self, plugin):
        super().__init__(plugin, self.NAME, gdb.COMMAND_STATUS)

    def run(self, arg):
        state = self._plugin.state_for_command()
        if state is None:
            print("No process.")
            return
        if not state.ranges:
            print("No JIT or trampoline ranges registered.")
        else:
            print("%-18s %-18s %-10s %-16s %-10s %s" % (
                "Start", "End", "Kind", "Rule", "Origin", "Name"))
            for r in state.ranges:
                print("%#018x %#018x %-10s %-16s %-10s %s" % (
                    r.start, r.end, ju.KIND_NAMES.get(r.kind, "?"),
                    ju.rule_text(r), ju.ORIGIN_NAMES.get(r.origin, "?"),
                    r.name))
        for note in state.notes:
            print("note: %s" % note)
