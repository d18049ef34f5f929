"""A frame filter for `bt`: JIT and trampoline frames are named by their
range (the Python function they run), and the Python frames of each
eval-loop activation are shown under it (gdb's elided frames), innermost
first. Frames are pulled from gdb lazily, a batch at a time, so `bt 3`
unwinds a handful of frames, not the whole stack; the interleaving is the
shared one (jitunwind.ui.stack, the library's mixer)."""

import gdb
from gdb.FrameDecorator import FrameDecorator

from jitunwind import ROLE_EVAL
from jitunwind.ui.labels import NO_NAME, PY_MARK, python_label, escaped
from jitunwind.ui.stack import jit_view_note, mixed_stack

FIRST_BATCH, LARGEST_BATCH = 1, 256


class NativeFrameDecorator(FrameDecorator):
    """A native frame as stock gdb prints it: `??` without a symbol, and no
    `at` for a frame without line information (gdb's frame-filter printer
    cannot say `from library`; mixed-bt does)."""

    def __init__(self, base, label=None, children=None):
        super().__init__(base)
        self._label = label
        self._children = list(children or ())

    def add_children(self, more):
        self._children.extend(more)

    def function(self):
        if self._label is not None:
            return self._label
        name = super().function()
        if not isinstance(name, str) and self.inferior_frame().name() is None:
            return NO_NAME
        return name

    def filename(self):
        sal = self.inferior_frame().find_sal()
        if sal.symtab is None:
            return None
        return super().filename()

    def elided(self):
        return iter(self._children) if self._children else None


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
        return escaped(self._py.filename) or None

    def line(self):
        return self._py.line if self._py.line > 0 else None

    def frame_args(self):
        return None

    def frame_locals(self):
        return None


def _message(text):
    """A note under the frame gdb printed last: written when gdb asks for the
    next frame, so it lands after that frame's Python frames."""
    print("    %s (%s)" % (PY_MARK, text))


class MixedFrameFilter:
    def __init__(self, plugin):
        self.name = "jitunwind"
        self.priority = 100
        self.enabled = True
        self._plugin = plugin

    def filter(self, frame_iter):
        return self._frames(iter(frame_iter))

    def _frames(self, frames):
        try:
            state = self._plugin.state_for_command()
        except Exception as exc:  # never raise into gdb
            print("jitunwind: frame filter skipped: %s" % exc)
            state = None
        if state is None:
            yield from frames
            return
        mixer, first, size = None, 0, FIRST_BATCH
        held = None  # (decorator, note to print after it): the newest frame
        done = False
        while not done:
            batch, done = self._pull(frames, size)
            try:
                decorated, mixer = self._decorate(state, batch, first, mixer)
            except Exception as exc:  # never raise into gdb: show the rest undecorated
                print("jitunwind: frame filter skipped: %s" % exc)
                yield from ([held[0]] if held else []) + batch
                yield from frames
                return
            first += len(batch)
            if mixer.started:  # before, one frame at a time: gdb's `bt 1` unwinds no further
                size = min(size * 2, LARGEST_BATCH)
            for item in decorated:
                if held is not None:
                    yield from self._emit(held)
                held = item
                # Once Python frames are read, hold the newest frame back:
                # those no native frame runs go under the last one, known
                # only at the end. Before that, nothing is held (`bt 1`).
                if not mixer.started:
                    yield from self._emit(held)
                    held = None
        if held is not None:
            deco, note = held
            if mixer is not None and mixer.started:
                deco.add_children(PythonFrameDecorator(deco, f, "(no matching native frame)")
                                  for f in mixer.leftovers())
                note = note or self._note(None, mixer, at_end=True)
            yield from self._emit((deco, note))

    @staticmethod
    def _emit(item):
        deco, note = item
        yield deco
        if note:  # gdb has printed `deco` and its Python frames by now
            _message(note)

    @staticmethod
    def _pull(frames, size):
        batch = []
        try:
            for deco in frames:
                batch.append(deco)
                if len(batch) >= size:
                    return batch, False
        except Exception as exc:  # gdb could not unwind further
            print("jitunwind: backtrace cut short: %s" % exc)
        return batch, True

    def _decorate(self, state, batch, first, mixer):
        """([(decorator, note to print after it or None)], mixer)."""
        views = [_View(d.inferior_frame()) for d in batch]
        lwp = gdb.selected_thread().ptid[1]
        entries, mixer = mixed_stack(state, views, lambda: state.python_frames(lwp), first, mixer)
        children = {}
        natives = {}
        for e in entries:
            if e.pyframe is None:
                natives[e.index] = e
            else:
                children.setdefault(e.anchor, []).append(
                    PythonFrameDecorator(batch[e.anchor - first], e.pyframe))
        out = []
        for i, deco in enumerate(batch):
            e = natives[first + i]
            kids = children.get(first + i, [])
            label = e.label if e.rng is not None else None
            note = self._note(e, mixer, kids) or jit_view_note(e, mixer)
            out.append((NativeFrameDecorator(deco, label, kids), note))
        return out, mixer

    @staticmethod
    def _note(entry, mixer, kids=(), at_end=False):
        """Why Python frames are missing, said once: under the first eval
        loop when none could be read, else after the last Python frame."""
        if mixer.error is None:
            return None
        if mixer.failed and entry is not None and entry.role == ROLE_EVAL:
            text = "Python frames unavailable: %s" % mixer.error
        elif not mixer.failed and (at_end or (mixer.exhausted and kids)):
            text = "Python frame chain cut short: %s" % mixer.error
        else:
            return None
        mixer.error = None
        return text


class _View:
    """What the shared classification reads of a gdb frame."""
    __slots__ = ("pc", "symbol")

    def __init__(self, frame):
        self.pc = frame.pc()
        self.symbol = frame.name() if frame.type() == gdb.NORMAL_FRAME else None
