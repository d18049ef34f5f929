"""The mixed stack as debuggers show it: the library's mixer (roles, the
Python frames each eval loop runs, exact lines in JIT code) fed native
frames in batches, so that a debugger that pulls frames lazily (`bt 3`)
unwinds only as many as it shows, and each frame labelled."""

from .. import KIND_JIT, KIND_NAMES, ORIGIN_INTERPRETER, ROLE_JIT, ROLE_TRAMPOLINE, lookup_address
from .. import jitview
from ..mixer import INLINED, ROLE_GIVEN, Mixer
from .labels import NO_NAME, range_label, rule_text


def lookup_pc(pc, innermost, arch):
    """The address to look a frame's code up by: a caller's pc is a return
    address, which may be just past its function. The library decides how far
    back (per architecture); an unknown architecture leaves pc as it is."""
    return lookup_address(arch, pc, innermost)


def _reader(state):
    """The target's PyReader, or None (no state, no Python in the target)."""
    try:
        return state.pyreader() if state is not None else None
    except Exception:  # no Python in this target: the eval loop is known by name only
        return None


class Interleaver:
    """Python frames anchored to native frames as they come.

    `python_frames()` is called once, when the first eval-loop frame is fed
    (a stack without one never reads the Python frames); it returns
    (frames, error). `state` (may be None) gives the mixer the target's
    architecture, ranges and Python reader; `not_innermost`: the first frame
    fed is a caller."""

    __slots__ = ("_load", "_mixer", "error", "failed", "jit_view_said")

    def __init__(self, python_frames, state=None, not_innermost=False):
        self._load = python_frames
        self._mixer = Mixer(getattr(state, "arch", None), getattr(state, "registry", None),
                            _reader(state), not_innermost)
        self.error = None
        self.failed = False          # the Python frames could not be read at all
        self.jit_view_said = False   # jit_view_note's line was given

    @property
    def pyframes(self):
        """The Python frames as mixing left them, or None before they are read."""
        return self._mixer.pyframes

    def _python(self):
        if self._mixer.pyframes is None:
            frames, self.error = [], None
            try:
                frames, self.error = self._load()
            except Exception as exc:  # shown by the caller as one line
                frames, self.error, self.failed = [], exc, True
            self._mixer.give_python(list(frames))
        return self._mixer.pyframes

    @property
    def started(self):
        return self._mixer.pyframes is not None

    def feed(self, roles):
        """The Python frames each of the next native frames runs, by their
        known roles."""
        return self._feed([(0, None, ROLE_GIVEN, role) for role in roles])[2]

    def feed_frames(self, natives):
        """(roles, lookup addresses, Python frames run by each) of the next
        native frames (objects with `pc`, `symbol` and optionally `inlined`),
        classified by the library."""
        return self._feed([(f.pc, f.symbol, INLINED if getattr(f, "inlined", False) else 0, 0)
                           for f in natives])

    def _feed(self, natives):
        roles, addresses, placed = self._mixer.feed(natives, self._python)
        groups = [[] for _ in natives]
        for anchor, index in placed:
            groups[anchor].append(self._mixer.pyframes[index])
        return roles, addresses, groups

    @property
    def exhausted(self):
        """Every Python frame read has been anchored."""
        return self.started and self._mixer.next_python >= len(self._mixer.pyframes)

    def unread(self):
        """The Python frames no native frame fed so far runs, read now if
        they were not (a walk cut by a limit before any eval loop); [] when
        the target has none to read."""
        self._python()
        return self.leftovers()

    def leftovers(self):
        """Python frames no native frame fed so far runs."""
        return self._mixer.pyframes[self._mixer.next_python:] if self.started else []


class MixedEntry:
    """One line of a mixed stack: a native frame (`native`, its `index` and
    `label`) or a Python frame (`pyframe`) run by the native frame `anchor`."""
    __slots__ = ("index", "native", "label", "rng", "role", "pyframe", "anchor", "why")

    def __init__(self, index, native=None, label=None, rng=None, role=None, pyframe=None,
                 anchor=None, why=None):
        self.index, self.native, self.label, self.rng, self.role = index, native, label, rng, role
        self.pyframe, self.anchor = pyframe, anchor
        self.why = why  # what the JIT view lacked for this executor frame, or None


def describe(state, symbol, role, address):
    """(range or None, label, why) of a native frame of `role` whose code
    is looked up at `address`; `why` says in one line what the JIT view
    lacked for a CPython executor's frame (None when nothing)."""
    rng = state.lookup(address) if state is not None and role in (ROLE_JIT, ROLE_TRAMPOLINE) \
        else None
    if rng is None:
        return None, symbol or NO_NAME, None
    label, why = range_frame_label(state.pyreader, rng, address)
    return rng, label, why


def range_frame_label(reader_fn, rng, address):
    """(label, why): a CPython executor's frame is labelled by the JIT view,
    `py::jit:hot [uop 17/42 NAME] (app.py:12) [jit fp-or-scan]`, when the
    executor's layout is known; any other range by its own label.
    `reader_fn` returns a PyReader or raises. Never raises."""
    if rng.kind != KIND_JIT or rng.origin != ORIGIN_INTERPRETER:
        return range_label(rng), None
    try:
        where = jitview.jit_pc(reader_fn(), address)
    except Exception as exc:
        return range_label(rng), str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if where is None:
        return range_label(rng), "no executor's code holds %#x" % address
    if not where.label:
        return range_label(rng), where.missing or "the executor at %#x has no name" % (
            where.executor)
    return "%s [%s %s]" % (jitview.frame_label(where), KIND_NAMES.get(rng.kind, "?"),
                           rule_text(rng)), where.missing or None


def jit_view_note(entry, mixer):
    """The one line a backtrace adds after the first executor frame whose
    JIT view is incomplete (the frame keeps the range's own label); None
    for every other frame."""
    if entry.why is None or mixer.jit_view_said:
        return None
    mixer.jit_view_said = True
    return "JIT view incomplete: %s" % entry.why


def mixed_stack(state, natives, python_frames, first_index=0, mixer=None):
    """(entries, mixer): the native frames `natives` (objects with `pc` and
    `symbol`, and `inlined` for a call inlined into the next one; innermost
    first, the first at `first_index`) with the Python frames each eval loop
    runs after it. Pass the returned `mixer` back with the next batch to
    continue a stack; `mixer.leftovers()` are the Python frames no frame so
    far runs, `mixer.error` why the chain is short."""
    mixer = mixer or Interleaver(python_frames, state, first_index > 0)
    roles, addresses, groups = mixer.feed_frames(natives)
    entries = []
    for i, (f, role, address, group) in enumerate(zip(natives, roles, addresses, groups)):
        index = first_index + i
        rng, label, why = describe(state, f.symbol, role, address)
        entries.append(MixedEntry(index, f, label, rng, role, why=why))
        entries.extend(MixedEntry(index, pyframe=p, anchor=index) for p in group)
    return entries, mixer
