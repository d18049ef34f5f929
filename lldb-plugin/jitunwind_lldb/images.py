"""Stock `bt` on LLDB 19-21: an ELF image of the ranges the plugin found
(jitunwind.Registry.write_elf_image: sections at the run-time addresses,
.eh_frame from the range rules, .symtab named by the frame labels), added
to the target as a module loaded with no slide, so LLDB's own unwinder and
symbolizer use it. A stop hook refreshes it when the ranges change; the
`jit-image` command shows, writes or refreshes it.

One module per target at a time: a new image gets a new file name (LLDB
caches modules by path), the old module is removed from the target and
its file deleted.

Ranges whose rule no static CFI can state (SCAN: CPython 3.13/3.14 JIT
code on x86-64, which does not keep rbp) get this stop's rows: the library
walks every thread and writes, for each such frame, where its caller is at
that pc with that stack; the image is then rewritten at every stop, since
the rows hold for one stop only."""

import atexit
import os
import shutil
import tempfile

import lldb

import jitunwind as ju

from . import target as tgt
from .commands import run_command
from .walk import registers

_images = {}  # target's unique key -> TargetImage
_directory = []  # this LLDB's private folder for image files, made on first use


def _image_dir(debugger):
    """The folder, removed when the debugger is destroyed (LLDB's quit, or
    the end of its input: LLDB does not run Python's atexit handlers, so
    that alone left one folder per session) or, failing that, at exit."""
    if not _directory:
        folder = tempfile.mkdtemp(prefix="jitunwind-lldb-")
        _directory.append(folder)
        atexit.register(shutil.rmtree, folder, True)

        def remove(*_):
            shutil.rmtree(folder, True)
        try:  # AddDestroyCallback keeps others' callbacks; older LLDBs only set one
            add = getattr(debugger, "AddDestroyCallback", None) or debugger.SetDestroyCallback
            add(remove)
        except Exception:  # never raise into the debugger: atexit stays
            pass
    return _directory[0]


def _key(target):
    return target.GetProcess().GetUniqueID() if target.GetProcess().IsValid() else id(target)


class TargetImage:
    def __init__(self, target):
        self.target = target
        self.module = None
        self.path = None
        self.digest = None
        self.info = None
        self.generation = 0
        self.note = None
        self.rewritten = False  # whether the last refresh wrote a new image

    @staticmethod
    def _digest(state, threads):
        """What the image is made of: the ranges, by the library's digest
        (no range is copied out, so an unchanged stop costs next to nothing
        at the caps), and this stop's registers when some range needs them."""
        return (state.arch, state.registry.digest(), repr(threads))

    @staticmethod
    def _stop_threads(state, process):
        """Each thread's innermost registers, when some range has no static
        CFI (SCAN: its rows are this stop's); else [] and the image is the
        same at every stop until the ranges change."""
        if not state.registry.count_rule(ju.RULE_SCAN):
            return []
        threads = []
        for thread in process:
            frame = thread.GetFrameAtIndex(0)
            if frame.IsValid():
                threads.append(registers(state.arch, frame))
        return threads

    def refresh(self, state, force=False):
        """Write and load the image of `state`'s ranges unless they are the
        ones loaded already (with `force`: and the module is still in the
        target). Returns True when the module changed.

        A change rewrites the whole image: LLDB caches a module by its path
        and reads its sections and symbols once, so a changed image is a new
        file, added as a new module, never a file edited in place."""
        threads = self._stop_threads(state, self.target.GetProcess())
        digest = self._digest(state, threads)
        self.rewritten = digest != self.digest or (force and self._module_gone())
        if not self.rewritten:
            return False
        self.generation += 1
        path = os.path.join(_image_dir(self.target.GetDebugger()),
                            "jit-%d-%d.elf" % (_key(self.target), self.generation))
        self.drop()
        if not len(state.registry) or state.arch is None:
            self.digest = digest
            self.info = None
            return True
        if threads:
            self.info = state.registry.write_elf_image_at_stop(path, state.arch, state.memory,
                                                               state.modules, threads)
        else:
            self.info = state.registry.write_elf_image(path, state.arch, state.memory)
        # Loaded with the command, not SBTarget.SetModuleLoadAddress: `target
        # modules load` also flushes the process's stack frames when it
        # changed a load address, so the next `bt` unwinds again.
        module = self.target.AddModule(path, None, None)
        if not module or not module.IsValid():
            self.note = "LLDB did not add %s" % path
            os.unlink(path)
            return True
        out = _run_on(self.target, 'target modules load --file "%s" --slide 0' % path)
        self.note = None if "error" not in out else out.strip()
        self.module, self.path, self.digest = module, path, digest
        return True

    def _module_gone(self):
        """The image's module was removed from the target (`target modules
        remove`): the next refresh loads it again."""
        return self.module is not None and not any(
            m == self.module for m in self.target.module_iter())

    def drop(self):
        if self.module is not None:
            self.target.RemoveModule(self.module)
            self.module = None
        if self.path:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            self.path = None
        self.digest = None


def _run_on(target, command):
    """`command` with `target` selected (the command acts on the selected
    target; a stop hook may run for another one)."""
    debugger = target.GetDebugger()
    selected = debugger.GetSelectedTarget()
    debugger.SetSelectedTarget(target)
    try:
        return run_command(debugger, command)
    finally:
        if selected.IsValid():
            debugger.SetSelectedTarget(selected)


def image_for(target):
    key = _key(target)
    if key not in _images:
        _images[key] = TargetImage(target)
    return _images[key]


def refresh_process(process, force=False):
    state = tgt.state_for(process, fresh=force)
    return image_for(process.GetTarget()).refresh(state, force)


def refresh_target(target, force=False):
    """Refresh the image of `target`'s process (`force`: a command; the
    ranges are read whole again, since the user may have written memory);
    one line on failure, never an exception (a stop hook and a command call
    this)."""
    process = target.GetProcess()
    if not process or not process.IsValid() or not process.GetState() in (
            lldb.eStateStopped, lldb.eStateCrashed, lldb.eStateSuspended):
        return "no stopped process"
    try:
        refresh_process(process, force)
    except Exception as exc:  # noqa: BLE001 (never into lldb)
        return str(exc)
    return image_for(target).note


_enabled = True
_in_use = []  # [True] once register() installed the stop hook (no frame provider)


class StopHook:
    """`target stop-hook add -P jitunwind_lldb.images.StopHook`: at every stop,
    write and load a new image when the ranges changed (nothing else when
    they did not)."""

    def __init__(self, target, extra_args, internal_dict):
        self.target = target

    def handle_stop(self, exe_ctx, stream):
        if _enabled:
            problem = refresh_target(exe_ctx.GetTarget())
            if problem and problem != "no stopped process":
                stream.Print("jitunwind: jit-image: %s\n" % problem)
        return True  # never resumes the process


def ensure_image(target):
    """Load the image once for a process no stop hook has seen: a core makes
    no stop event, so without this its first `bt` would run without it."""
    if _in_use and _enabled and image_for(target).generation == 0:
        refresh_target(target)


class FirstFrameRecognizer:
    """A frame recognizer on every function (LLDB 19-21). LLDB asks the
    recognizers about frame 0 before it unwinds past it, so an image loaded
    here serves the `bt` that asked. The eval-loop recognizer, which LLDB
    prefers for its frames, calls ensure_image too."""

    def get_recognized_arguments(self, frame):
        try:
            ensure_image(frame.GetThread().GetProcess().GetTarget())
        except Exception:  # noqa: BLE001 (a recognizer must never raise into lldb)
            pass
        return []


USAGE = "usage: jit-image [status | refresh | write FILE | on | off]"


class JitImageCommand:
    """jit-image: the ELF image of the JIT and trampoline ranges that stock
    `bt` uses on LLDB 19-21 (see docs/lldb.md)."""

    def __init__(self, debugger, internal_dict):
        pass

    def get_short_help(self):
        return "Show, refresh or write the JIT image that LLDB's own bt uses."

    def get_long_help(self):
        return ("%s\n\n"
                "The plugin writes an ELF image of the JIT and trampoline ranges it\n"
                "found (symbols named like mixed-bt's frames, CFI from their unwind\n"
                "rules) and loads it into the target at the ranges' addresses, so that\n"
                "LLDB's own bt, up, down and frame select go through them. A stop hook\n"
                "refreshes it when the ranges change.\n"
                "  status       the loaded image: file, ranges, FDEs (default)\n"
                "  refresh      re-read the ranges; reload the image if they changed\n"
                "  write FILE   write the image of this stop's ranges to FILE\n"
                "  on | off     turn the stop hook's refresh on or off" % USAGE)

    def __call__(self, debugger, command, exe_ctx, result):
        global _enabled
        args = command.split()
        target = exe_ctx.GetTarget()
        try:
            if not args or args == ["status"]:
                im = image_for(target) if target.IsValid() else None
                if not im or not im.path:
                    result.AppendMessage("jit-image: no image loaded%s" % (
                        "" if _enabled else " (refresh is off)"))
                    return
                info = im.info or {}
                left_out = info.get("left_out", 0)
                result.AppendMessage(
                    "jit-image: %s: %d ranges (%d with CFI, %d without), %d FDEs, %d sections%s%s"
                    % (im.path, info.get("ranges", 0), info.get("with_cfi", 0),
                       info.get("without_cfi", 0), info.get("fdes", 0),
                       info.get("sections", 0),
                       ", %d ranges left out (past the image's caps)" % left_out
                       if left_out else "", "" if _enabled else " (refresh is off)"))
            elif args == ["refresh"]:
                problem = refresh_target(target, force=True)
                result.AppendMessage("jit-image: %s" % (
                    problem or ("reloaded" if image_for(target).rewritten
                                else "unchanged (the loaded image holds these ranges)")))
            elif len(args) == 2 and args[0] == "write":
                state = tgt.state_for(exe_ctx.GetProcess(), fresh=True)
                info = state.registry.write_elf_image(args[1], state.arch, state.memory)
                result.AppendMessage("jit-image: wrote %s: %d ranges, %d FDEs"
                                     % (args[1], info["ranges"], info["fdes"]))
            elif args in (["on"], ["off"]):
                _enabled = args == ["on"]
                result.AppendMessage("jit-image: refresh at every stop is %s" % args[0])
            else:
                result.AppendMessage("jitunwind: jit-image: bad arguments: %s\n%s"
                                     % (command.strip(), USAGE))
        except Exception as exc:  # noqa: BLE001 (never into lldb)
            result.AppendMessage("jitunwind: jit-image: %s" % exc)


def register(debugger, package, stop_hook=True):
    """`jit-image`, and with `stop_hook` the image refreshed at every stop
    (LLDB 19-21; LLDB 22+ has the frame provider, whose walk needs no
    image, and with both LLDB's own frames would name the ranges by the
    image's symbols)."""
    debugger.HandleCommand("command script add -o -c %s.images.JitImageCommand jit-image"
                           % package)
    if not stop_hook:
        return
    _in_use[:] = [True]
    hook = "%s.images.StopHook" % package
    if hook not in run_command(debugger, "target stop-hook list"):
        run_command(debugger, "target stop-hook add -P %s" % hook)


def register_first_frame(debugger, package):
    """The FirstFrameRecognizer, added before the eval-loop recognizer: LLDB
    tries the most recently added recognizer first, and this one matches
    every function."""
    recognizer = "%s.images.FirstFrameRecognizer" % package
    if recognizer not in run_command(debugger, "frame recognizer list"):
        debugger.HandleCommand("frame recognizer add -x -f false -l %s -n . -s ." % recognizer)
