"""A scripted frame provider (LLDB 22+), so that LLDB's own `bt`, `frame
select`, `up` and `down` show the mixed stack: the library's native walk
(through JIT and trampoline code) with one frame per Python function right
above the eval-loop frame that runs it. Feature-detected: on an LLDB
without SBTarget.RegisterScriptedFrameProvider nothing is registered.

Each native frame of the walk is LLDB's own input frame when LLDB unwound
to the same pc and stack pointer (its registers, CFA and variables kept,
inlined calls included); otherwise a scripted frame named and placed by
the walk (one per inlined call, as gdb lists them; JIT and trampoline code
by its range: `py::jit:leaf [jit fp-preserving]`). A Python frame is a
scripted frame without a pc named `<qualname> [Python]`, whose line entry
is the Python file and line, so `frame select` shows its source. The
provider only reads memory."""

import threading

import lldb

from jitunwind.ui.labels import escaped, python_name
from jitunwind.ui.stack import mixed_stack

from . import target as tgt
from . import unseen_stops
from .walk import code_levels, innermost_registers, native_frames

try:
    from lldb.plugins.scripted_frame_provider import ScriptedFrameProvider
    from lldb.plugins.scripted_process import ScriptedFrame
except ImportError:  # LLDB 21 and older
    ScriptedFrameProvider = ScriptedFrame = None

INPUT_FRAMES_READ = 4096   # LLDB's own frames looked at for a match, at most
PYTHON_MARK = " [Python]"  # ends a Python frame's name: `bt` and `frame info` say what it is


def available():
    return ScriptedFrameProvider is not None and \
        hasattr(lldb.SBTarget, "RegisterScriptedFrameProvider")


if available():
    class _Frame(ScriptedFrame):
        """A frame LLDB did not unwind to (or JIT code, named by its
        range), or a Python frame (no pc). It has no registers: LLDB 23.1
        builds a scripted frame's register context on register info it
        frees on return, and crashes reading it (ScriptedFrame.cpp,
        CreateRegisterContext), so a frame here offers none."""

        def __init__(self, thread, index, pc, name, context, inlined=False):
            super().__init__(thread, lldb.SBStructuredData())
            self.index, self.pc, self.name, self.context = index, pc, name, context
            self.inlined = inlined

        def get_id(self):
            return self.index

        def get_pc(self):
            return self.pc

        def get_symbol_context(self):
            return self.context

        def get_function_name(self):
            return self.name

        def is_inlined(self):
            return self.inlined

        def is_artificial(self):
            return False

        def is_hidden(self):
            return False

        def get_register_info(self):
            return {"sets": [], "registers": []}

        def get_register_context(self):
            return None

    class MixedFrameProvider(ScriptedFrameProvider):
        @staticmethod
        def applies_to_thread(thread):
            """Not at a stop LLDB will continue from unseen: LLDB makes
            and calls a provider at every stop of a thread it applies to,
            which alone costs about what the stop costs."""
            try:
                return not unseen_stops.is_unseen(thread)
            except Exception:  # never raise into lldb: the provider applies
                return True

        def __init__(self, input_frames, args):
            super().__init__(input_frames, args)
            self._frames = None
            self._registers = None  # frame 0's, kept when frame 0 was answered unwalked

        @staticmethod
        def get_description():
            return ("libjitunwind: native frames through JIT and trampoline code, and each "
                    "Python function above the eval loop that runs it")

        def get_frame_at_index(self, index):
            if self._frames is None:
                try:
                    key = self.stop_key()  # raises without a process (early in an attach)
                    frames = _walked.get(key)
                    if frames is None:
                        if index == 0 and on_private_state_thread() and \
                                self._innermost_is_lldbs():
                            _deferred.note(key, self)
                            return 0
                        frames = self.walk(key)
                except Exception:  # never raise into lldb: LLDB's own frames stand
                    frames = list(range(self.input_frames.GetSize()))
                self._frames = frames
            return self._frames[index] if index < len(self._frames) else None

        def stop_key(self):
            return (self.process.GetUniqueID(), self.process.GetStopID(True),
                    self.thread.GetThreadID())

        def _innermost_is_lldbs(self):
            """Whether the mixed stack's frame 0 is LLDB's own frame 0,
            known without the walk: the thread stopped in code a module
            holds (JIT and trampoline code is in anonymous memory, and
            Python frames only ever come above an eval-loop frame). Keeps
            frame 0's registers for a walk that may not ask LLDB again."""
            try:
                frame = self.input_frames.GetFrameAtIndex(0)
                if not frame or not frame.IsValid():
                    return False
                module = frame.GetPCAddress().GetModule()
                if not module or not module.IsValid() or \
                        module.FindSection(".jitunwind").IsValid():
                    return False
                self._registers = innermost_registers(tgt.arch_of(self.target), frame)
                return self._registers is not None
            except Exception:  # never raise into lldb: the walk decides
                return False

        def walk(self, key):
            """The mixed frames of this stop, walked once per stop and
            thread. LLDB 23.1.4 deadlocks when a provider asked for frame
            1 or later on a thread that shows frames (the main thread, the
            event handler) touches an SBFrame: the frame list being filled
            is locked, and the SBFrame looks itself up in it. A walk there
            after an unwalked frame 0 starts from frame 0's registers and
            names every other frame itself; the stop hook walks shown stops
            before they are shown, where LLDB's own frames can be reused."""
            frames = _walked.get(key)
            if frames is not None:
                return frames
            reuse_lldbs = self._registers is None or on_private_state_thread() or \
                _in_stop_hook
            _walk_count[0] += 1
            try:
                frames = self._mixed_frames(reuse_lldbs)
            except Exception:  # never raise into lldb: LLDB's own frames stand
                frames = list(range(self.input_frames.GetSize())) if reuse_lldbs else [0]
            _walked.note(key, frames)
            return frames

        def _input_index(self):
            """(pc, sp) -> LLDB's frame indexes for that frame of the walk:
            the calls inlined there, then the concrete frame (LLDB gives an
            inlined call's callers the pc of their call site, so a group is
            keyed by its first frame); each index's (pc, sp); its function."""
            by_key, keys, names, group = {}, {}, {}, []
            for i in range(INPUT_FRAMES_READ):
                frame = self.input_frames.GetFrameAtIndex(i)
                if not frame or not frame.IsValid():
                    break
                keys[i] = (frame.GetPC(), frame.GetSP())
                names[i] = frame.GetFunctionName()
                group.append(i)
                if not frame.IsInlined():
                    by_key.setdefault(keys[group[0]], group)
                    group = []
            return by_key, keys, names

        def _mixed_frames(self, reuse_lldbs):
            state = tgt.state_for(self.process)
            views, _ = native_frames(state, self.thread, registers=self._registers)
            if not views:
                return list(range(self.input_frames.GetSize())) if reuse_lldbs else [0]
            tid = self.thread.GetThreadID()
            entries, _ = mixed_stack(state, views, lambda: state.python_frames(tid))
            if reuse_lldbs:
                inputs, keys, names = self._input_index()
            else:  # LLDB's frame 0 only, as answered
                keys = {0: (views[0].pc, views[0].sp)}
                inputs, names = {keys[0]: [0]}, {0: None}
            out, group, used = [], [], -1
            shown = set()  # (pc, sp) of LLDB's frames listed: a group may hold a caller
            for entry in entries:
                if entry.pyframe is not None:
                    out.append(self._python_frame(len(out), entry))
                    continue
                group.append(entry)
                if entry.native.inlined:
                    continue
                native = entry.native
                mine = [i for i in inputs.get((native.pc, native.sp), ()) if i > used]
                # LLDB's own frames where they name the same functions as
                # the walk (never for JIT code: its label names it). LLDB
                # 23 sometimes drops the function an inlined call ends in
                # (PyObject_Vectorcall under _PyObject_VectorcallTstate):
                # then the walk's frames are shown.
                if entry.rng is None and (native.pc, native.sp) in shown:
                    pass  # LLDB listed it already
                elif entry.rng is None and mine and not reuse_lldbs:
                    out.append(0)  # LLDB's frame 0, as answered; the rest named here
                    out.extend(self._native_frames(0, group, state)[1:])
                    used = 0
                    shown.add(keys[0])
                elif entry.rng is None and mine and \
                        [names[i] for i in mine] == [e.native.symbol for e in group]:
                    out.extend(mine)
                    used = mine[-1]
                    shown.update(keys[i] for i in mine)
                else:
                    out.extend(self._native_frames(len(out), group, state))
                group = []
            # Where the walk ends on one of LLDB's frames and LLDB went on
            # (the library stopped early), LLDB's further frames follow.
            if out and isinstance(out[-1], int):
                out.extend(range(out[-1] + 1, len(keys)))
            return out

        def _native_frames(self, first, group, state):
            """Scripted frames for one frame of the walk LLDB did not reach:
            its inlined calls, then the function (a JIT range by its label)."""
            native = group[-1].native
            if group[-1].rng is not None:
                # LLDB names a frame with a pc by its own symbol there, and
                # has one where the JIT registered its code through the GDB
                # JIT interface (CPython 3.15: "py::jit:executor"): such a
                # frame is given without its pc, so that its label shows.
                pc = native.pc
                if self.thread.GetProcess().GetTarget().ResolveLoadAddress(pc) \
                        .GetSymbol().IsValid():
                    pc = None
                return [_Frame(self.thread, first, pc, group[-1].label, None)]
            levels = code_levels(state, native.pc, group[0].index == 0)
            frames = []
            for i, level in enumerate(levels):
                context = lldb.SBSymbolContext(level.context)
                if level.file is not None and level.line > 0:
                    context.SetLineEntry(_line_entry(level.file, level.line))
                # LLDB names a frame after its block: the inlined call's, or
                # the function's own for the concrete frame.
                if level.block is not None:
                    context.SetBlock(level.block)
                elif context.GetFunction().IsValid():
                    context.SetBlock(context.GetFunction().GetBlock())
                frames.append(_Frame(self.thread, first + i, native.pc,
                                     level.name or group[-1].label, context,
                                     inlined=level.block is not None))
            return frames

        def _python_frame(self, index, entry):
            p = entry.pyframe
            context = lldb.SBSymbolContext()
            if p.filename and p.line > 0:
                # lldb prints the file as it is: a name the target chose is escaped
                context.SetLineEntry(_line_entry(lldb.SBFileSpec(escaped(p.filename), False),
                                                 p.line))
            return _Frame(self.thread, index, None, python_name(p) + PYTHON_MARK, context)

    def _line_entry(file, line):
        entry = lldb.SBLineEntry()
        entry.SetFileSpec(file)
        entry.SetLine(line)
        return entry


PROVIDER = "provider.MixedFrameProvider"
HOOK = "provider.OnStop"


class _ThisStop:
    """Values kept for the latest stop of each process only, keyed by
    (process, stop id, thread id): a key of a newer stop drops the older
    stop's values of that process."""

    def __init__(self):
        self._stop = {}    # process -> the stop id kept
        self._values = {}

    def get(self, key):
        return self._values.get(key)

    def note(self, key, value):
        process, stop, _ = key
        if self._stop.get(process) != stop:
            self._values = {k: v for k, v in self._values.items() if k[0] != process}
            self._stop[process] = stop
        self._values[key] = value

    def take(self, process, stop):
        """The values of that stop, removed."""
        keys = [k for k in self._values if k[:2] == (process, stop)]
        return [(k, self._values.pop(k)) for k in keys]


_walked = _ThisStop()    # each thread's mixed frames at this stop
_deferred = _ThisStop()  # providers that answered frame 0 without the walk
_in_stop_hook = False
_walk_count = [0]
_thread_names = {}  # native thread id -> its name (/proc/self/task/ID/comm)


def on_private_state_thread():
    """Whether LLDB's private state thread (`intern-state`: it decides
    whether a stop is shown, and steps) is the caller: there an SBFrame
    may be used at any frame index, and frame 0 alone is asked."""
    tid = threading.get_native_id()
    name = _thread_names.get(tid)
    if name is None:
        try:
            with open("/proc/self/task/%d/comm" % tid) as f:
                name = f.read().strip()
        except OSError:
            name = ""
        _thread_names[tid] = name
    return name.startswith("intern-state")


def walks():
    """How many stack walks the provider has made in this LLDB."""
    return _walk_count[0]


def walk_deferred(process):
    """Walks, now, the threads whose frame 0 LLDB took unwalked at this
    stop: at a stop LLDB shows, before it shows it (a stop hook runs
    first), where the walk may still reuse LLDB's own frames."""
    global _in_stop_hook
    key = (process.GetUniqueID(), process.GetStopID(True))
    _in_stop_hook = True
    try:
        for thread_key, provider in _deferred.take(*key):
            provider.walk(thread_key)
    finally:
        _in_stop_hook = False


_registered = set()  # targets (LLDB's unique ids) the provider is registered on


class OnStop:
    """A stop hook, at every stop LLDB shows: walks the threads whose frame
    0 was answered unwalked, and registers the provider on the target if it
    is not yet (added to LLDB's dummy target when the plugin is imported
    before any target, e.g. from ~/.lldbinit: every target made later
    inherits it; a core gets it when it is loaded)."""

    def __init__(self, target, extra_args, internal_dict):
        self.package = extra_args.GetValueForKey("package").GetStringValue(200) \
            if extra_args and extra_args.IsValid() else "jitunwind_lldb"

    def handle_stop(self, exe_ctx, stream):
        try:
            target = exe_ctx.GetTarget()
            if target.GetGloballyUniqueID() not in _registered:
                register(target, self.package)
            process = exe_ctx.GetProcess()
            if process and process.IsValid():
                walk_deferred(process)
        except Exception:  # a stop hook must never raise into lldb
            pass
        return True


def register(target, package):
    """Registers the provider on `target` (registering it again replaces
    it: LLDB keys providers by class and arguments). False on failure."""
    err = lldb.SBError()
    target.RegisterScriptedFrameProvider("%s.%s" % (package, PROVIDER),
                                         lldb.SBStructuredData(), err)
    if err.Success():
        _registered.add(target.GetGloballyUniqueID())
    return err.Success()


def register_if_available(debugger, package):
    """The provider on the selected target, and the stop hook (on that
    target, or with none yet on LLDB's dummy target, whose hooks every
    later target inherits). False where the LLDB has no frame providers
    (nothing is registered; `mixed-bt` remains)."""
    if not available():
        return False
    target = debugger.GetSelectedTarget()
    if target and target.IsValid() and not register(target, package):
        return False
    result = lldb.SBCommandReturnObject()  # quiet: no "Stop hook #1 added."
    debugger.GetCommandInterpreter().HandleCommand(
        "target stop-hook add -P %s.%s -k package -v %s" % (package, HOOK, package), result)
    return result.Succeeded()


def python_frame_ids(thread):
    """LLDB's frame numbers of the Python frames this provider (22+) listed
    for `thread`, innermost first; [] without it."""
    if not available():
        return []
    return [f.GetFrameID() for f in thread
            if f.IsSynthetic() and (f.GetFunctionName() or "").endswith(PYTHON_MARK)]
