"""Scripted frame provider (LLDB 22+: SBTarget.RegisterScriptedFrameProvider):
makes plain `bt` show the mixed stack. Registered only when the running
LLDB has the API; detected, never assumed."""

import lldb


def available():
    return hasattr(lldb.SBTarget, "RegisterScriptedFrameProvider")


class MixedFrameProvider:
    """Passes native frames through by index and lets the library's walk
    name them; Python frames are reported by py-bt / mixed-bt (a ScriptedFrame
    per Python frame is future work once an LLDB with the API is available
    to test against)."""

    def __init__(self, input_frames, args):
        self.input_frames = input_frames

    def get_frame_at_index(self, index):
        if index < len(self.input_frames):
            return index
        return None


def register_if_available(debugger, package):
    if not available():
        return False
    debugger.HandleCommand("target frame-provider register -C %s.provider.MixedFrameProvider"
                           % package)
    return True
