"""A frame filter for `bt`: JIT and trampoline frames are named by their
range (the Python function they run), and the Python frames of each
eval-loop activation are shown under it (gdb's elided frames), innermost
first. The interleaving itself is computed by the library (jitunwind_mix)."""

import gdb
from gdb.FrameDecorator import FrameDecorator

import jitunwind as ju

from jitunwind import python_label, range_label

PY_MARK = "[py]"


class RangeFrameDecorator(FrameDecorator):
    def __init__(self, base, rng):
        super().__init__(base)
        self._rng = rng

    def function(self):
        return range_label(self._rng)


class PythonFrameDecorator(FrameDecorator):
    """One Python frame, shown as an elided child of its eval-loop frame."""

    def __init__(self, base, pyframe, note=None):
        super().__init__(base)
        self._py = pyframe
        self._note = note

    def function(self):
        label = python_label(self._py)
        return "%s %s" % (label, self._note) if self._note else label

    def address(self):
        return None

    def filename(self):
        return self._py.filename or None

    def line(self):
        return self._py.line if self._py.line > 0 else None

    def frame_args(self):
        return None

    def frame_locals(self):
        return None


class EvalFrameDecorator(FrameDecorator):
    def __init__(self, base, children):
        super().__init__(base)
        self._children = children

    def elided(self):
        return iter(self._children) if self._children else None


class MessageDecorator(PythonFrameDecorator):
    """A one-line note (e.g. why Python frames are missing) under a frame."""

    def __init__(self, base, text):
        super().__init__(base, None)
        self._text = text

    def function(self):
        return "%s (%s)" % (PY_MARK, self._text)

    def filename(self):
        return None

    def line(self):
        return None


class MixedFrameFilter:
    def __init__(self, plugin):
        self.name = "jitunwind"
        self.priority = 100
        self.enabled = True
        self._plugin = plugin

    def filter(self, frame_iter):
        try:
            decorators = list(frame_iter)
        except Exception as exc:
            print("jitunwind: backtrace cut short: %s" % exc)
            return iter(())
        try:
            return iter(self._decorate(decorators))
        except Exception as exc:  # never raise into gdb
            print("jitunwind: frame filter skipped: %s" % exc)
            return iter(decorators)

    def _decorate(self, decorators):
        state = self._plugin.state_for_command()
        frames = [d.inferior_frame() for d in decorators]
        roles = []
        out = []
        for deco, frame in zip(decorators, frames):
            role = ju.ROLE_OTHER
            rng = None
            if state is not None:
                pc = frame.pc()
                rng = state.lookup(pc) if frame.level() == 0 else state.lookup(pc - 1)
            if rng is not None:
                role = ju.ROLE_JIT if rng.kind == ju.KIND_JIT else ju.ROLE_TRAMPOLINE
                out.append(RangeFrameDecorator(deco, rng))
            else:
                if frame.type() == gdb.NORMAL_FRAME:
                    role = ju.native_role(frame.name())
                    if role == ju.ROLE_TRAMPOLINE:
                        role = ju.ROLE_OTHER  # only registered ranges are trampolines here
                out.append(deco)
            roles.append(role)
        if state is None or ju.ROLE_EVAL not in roles:
            return out
        try:
            lwp = gdb.selected_thread().ptid[1]
            pyframes, err = state.python_frames(lwp)
        except Exception as exc:
            first_eval = roles.index(ju.ROLE_EVAL)
            out[first_eval] = EvalFrameDecorator(
                out[first_eval], [MessageDecorator(decorators[first_eval],
                                                   "Python frames unavailable: %s" % exc)])
            return out
        children = {}
        leftovers = []
        for kind, index, anchor in ju.mix(roles, pyframes):
            if kind != ju.MIXED_PYTHON:
                continue
            if anchor is None:
                leftovers.append(pyframes[index])
            else:
                children.setdefault(anchor, []).append(
                    PythonFrameDecorator(decorators[anchor], pyframes[index]))
        if err is not None:
            last = max(children) if children else roles.index(ju.ROLE_EVAL)
            children.setdefault(last, []).append(
                MessageDecorator(decorators[last], "Python frame chain cut short: %s" % err))
        if leftovers:
            last = len(decorators) - 1
            children.setdefault(last, []).extend(
                PythonFrameDecorator(decorators[last], f, "(no matching native frame)")
                for f in leftovers)
        for index, kids in children.items():
            out[index] = EvalFrameDecorator(out[index], kids)
        return out
