"""Scripted frame provider (LLDB 22+: SBTarget.RegisterScriptedFrameProvider),
so that plain `bt` gets through JIT and trampoline code. Registered only when
the running LLDB has the API; detected, never assumed.

The frames it provides are the native frames of the library's walk (range
rules, CFI, frame pointers), each as {"idx", "pc"} for LLDB to symbolize.
Python frames are not yet provided as ScriptedFrames: use py-bt / mixed-bt or
the eval-loop recognizer. This path cannot be exercised with Debian 12's
LLDB 19; its test skips there."""

import lldb

from . import target as tgt
from .walk import native_frames


def available():
    return hasattr(lldb.SBTarget, "RegisterScriptedFrameProvider")


class MixedFrameProvider:
    def __init__(self, input_frames, args):
        self.input_frames = input_frames
        self.frames = []
        try:
            thread = input_frames.GetFrameAtIndex(0).GetThread()
            natives, _ = native_frames(tgt.state_for(thread.GetProcess()), thread)
            self.frames = [{"idx": i, "pc": f.pc} for i, f in enumerate(natives)]
        except Exception:  # fall back to LLDB's own frames
            self.frames = []

    @staticmethod
    def get_description():
        return "libjitunwind: native frames walked through JIT and trampoline code"

    def get_frame_at_index(self, index):
        if self.frames:
            return self.frames[index] if index < len(self.frames) else None
        return index if index < self.input_frames.GetSize() else None


def register_if_available(debugger, package):
    if not available():
        return False
    debugger.HandleCommand("target frame-provider register -C %s.provider.MixedFrameProvider"
                           % package)
    return True
