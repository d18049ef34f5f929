"""Frame roles and the interleaving of native and Python frames.

The interleaving rule is the library's (jitunwind_mix: the k-th eval-loop
frame runs the k-th group of Python frames). `Interleaver` feeds it native
frames in batches, so that a debugger that pulls frames lazily (`bt 3`)
unwinds only as many as it shows."""

from .. import (KIND_JIT, MIXED_PYTHON, PYFRAME_LINE_MAY_LAG, ROLE_EVAL, ROLE_JIT, ROLE_OTHER,
                ROLE_TRAMPOLINE, lookup_address, mix, native_role)
from .. import jitview
from .labels import NO_NAME


def lookup_pc(pc, innermost, arch):
    """The address to look a frame's code up by: a caller's pc is a return
    address, which may be just past its function. The library decides how far
    back (per architecture); an unknown architecture leaves pc as it is."""
    return lookup_address(arch, pc, innermost)


def frame_role(rng, symbol):
    """The role of a native frame: JIT or trampoline when a registered range
    holds it, the eval loop by its symbol, anything else OTHER (a trampoline
    is a trampoline only when a range says so)."""
    if rng is not None:
        return ROLE_JIT if rng.kind == KIND_JIT else ROLE_TRAMPOLINE
    role = native_role(symbol) if symbol else ROLE_OTHER
    return role if role == ROLE_EVAL else ROLE_OTHER


class Interleaver:
    """Python frames anchored to native frames as they come.

    `python_frames()` is called once, when the first eval-loop frame is fed
    (a stack without one never reads the Python frames); it returns
    (frames, error). `feed(roles)` takes the roles of the next native frames
    and returns, for each, the list of Python frames it runs."""

    def __init__(self, python_frames):
        self._load = python_frames
        self.pyframes = None
        self.error = None
        self.failed = False     # the Python frames could not be read at all
        self._next = 0          # first Python frame not yet anchored
        self._previous = None   # role of the last native frame fed

    def _python(self):
        if self.pyframes is None:
            self.pyframes, self.error = [], None
            try:
                frames, self.error = self._load()
                self.pyframes = list(frames)
            except Exception as exc:  # shown by the caller as one line
                self.error, self.failed = exc, True
        return self.pyframes

    @property
    def started(self):
        return self.pyframes is not None

    def feed(self, roles):
        roles = list(roles)
        groups = [[] for _ in roles]
        if ROLE_EVAL in roles:
            base = self._next
            pending = self._python()[base:]
            # The frame before this batch matters only as JIT (the innermost
            # Python frame of the next eval loop then runs in JIT code); as
            # anything else it must not anchor a second time.
            head = [ROLE_JIT] if self._previous == ROLE_JIT else []
            placed = mix(head + roles, pending)  # marks lagging lines in `pending`
            self.pyframes[base:] = pending
            for kind, index, anchor in placed:
                if kind == MIXED_PYTHON and anchor is not None:
                    groups[anchor - len(head)].append(pending[index])
                    self._next = base + index + 1
        if roles:
            self._previous = roles[-1]
        return groups

    @property
    def exhausted(self):
        """Every Python frame read has been anchored."""
        return self.pyframes is not None and self._next >= len(self.pyframes)

    def unread(self):
        """The Python frames no native frame fed so far runs, read now if
        they were not (a walk cut by a limit before any eval loop); [] when
        the target has none to read."""
        self._python()
        return self.leftovers()

    def leftovers(self):
        """Python frames no native frame fed so far runs."""
        return self.pyframes[self._next:] if self.pyframes else []


class MixedEntry:
    """One line of a mixed stack: a native frame (`native`, its `index` and
    `label`) or a Python frame (`pyframe`) run by the native frame `anchor`."""
    __slots__ = ("index", "native", "label", "rng", "role", "pyframe", "anchor", "why")

    def __init__(self, index, native=None, label=None, rng=None, role=None, pyframe=None,
                 anchor=None, why=None):
        self.index, self.native, self.label, self.rng, self.role = index, native, label, rng, role
        self.pyframe, self.anchor = pyframe, anchor
        self.why = why  # what the JIT view lacked for this executor frame, or None


def classify(state, pc, innermost, symbol):
    """(role, range or None, label, why) of a native frame. A CPython
    executor's frame is labelled by the JIT view: `py::jit:hot [uop 17/42
    NAME] (file:line)`; `why` says what the view lacked, if anything."""
    rng = state.lookup(lookup_pc(pc, innermost, state.arch)) if state is not None else None
    label, why = symbol or NO_NAME, None
    if rng is not None:
        label, _, why = jitview.range_frame_label(state.pyreader, rng,
                                                  lookup_pc(pc, innermost, state.arch))
    role = frame_role(rng, symbol)
    if role == ROLE_OTHER and rng is None and state is not None and \
            in_eval_loop(state, lookup_pc(pc, innermost, state.arch)):
        role = ROLE_EVAL
    return role, rng, label, why


def in_eval_loop(state, addr):
    """Whether `addr` lies in the eval loop's code as the library found it
    (every part: a debugger may name a `.cold` part differently, or not at
    all); False without a Python reader."""
    try:
        return state.pyreader().in_eval_loop(addr)
    except Exception:  # no Python in this target: nothing is its eval loop
        return False


def jit_view_note(entry, mixer):
    """The one line a backtrace adds after the first executor frame whose
    JIT view is incomplete (the frame keeps the range's own label); None
    for every other frame."""
    if entry.why is None or getattr(mixer, "jit_view_said", False):
        return None
    mixer.jit_view_said = True
    return "JIT view incomplete: %s" % entry.why


def mixed_stack(state, natives, python_frames, first_index=0, mixer=None):
    """(entries, mixer): the native frames `natives` (objects with `pc` and
    `symbol`, innermost first, the first at `first_index`) with the Python
    frames each eval loop runs after it. Pass the returned `mixer` back with
    the next batch to continue a stack; `mixer.leftovers()` are the Python
    frames no frame so far runs, `mixer.error` why the chain is short."""
    mixer = mixer or Interleaver(python_frames)
    # The innermost frame's pc is not a return address; nor is that of the
    # functions inlined into it, listed before it with the same pc.
    concrete_seen = getattr(mixer, "concrete_seen", first_index > 0)
    classified = []
    for f in natives:
        classified.append(classify(state, f.pc, not concrete_seen, f.symbol))
        concrete_seen = concrete_seen or not getattr(f, "inlined", False)
    mixer.concrete_seen = concrete_seen
    groups = mixer.feed([c[0] for c in classified])
    _exact_lines(state, natives, first_index, classified, groups, mixer)
    entries = []
    for i, (f, (role, rng, label, why), group) in enumerate(zip(natives, classified, groups)):
        index = first_index + i
        entries.append(MixedEntry(index, f, label, rng, role, why=why))
        entries.extend(MixedEntry(index, pyframe=p, anchor=index) for p in group)
    return entries, mixer


def _exact_lines(state, natives, first_index, classified, groups, mixer):
    """The innermost Python frame of an eval loop that called JIT code gets
    its exact line from the uop at the innermost JIT frame's PC (the JIT
    frames right above the eval loop: the trace, then the shim), looked up
    in that Python frame's code object; its "line may lag" flag goes. The
    run of JIT frames may start in an earlier batch (kept on the mixer)."""
    run = getattr(mixer, "jit_run", [])
    for i, (f, (role, *_), group) in enumerate(zip(natives, classified, groups)):
        if role == ROLE_JIT:
            run.append(lookup_pc(f.pc, first_index + i == 0, state.arch if state else None))
            continue
        if group and run and group[0].flags & PYFRAME_LINE_MAY_LAG and state is not None:
            try:
                where = jitview.try_jit_pc(state.pyreader(), run[0], group[0].code)
            except Exception:
                where = None
            if where is not None and where.region == jitview.REGION_UOP and where.uop.line > 0:
                group[0] = group[0]._replace(line=where.uop.line,
                                             flags=group[0].flags & ~PYFRAME_LINE_MAY_LAG)
        run = []
    mixer.jit_run = run
