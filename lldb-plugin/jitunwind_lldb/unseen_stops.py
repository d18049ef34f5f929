"""Stops LLDB continues from without showing them, known when it first
asks for a thread's frames at that stop (before it decides): a breakpoint
hit whose every location still has hits to ignore, and the single step over
that breakpoint's instruction that follows it. The frame provider does not
apply there (LLDB then builds its own frames only), which keeps `breakpoint
modify -i N` as cheap as without the plugin. Anything else may be shown."""

import lldb

_ignored_hits = {}  # (process, thread id) -> stop id of its last hit known to be ignored


def _location_ignores(target, bp_id, loc_id):
    breakpoint = target.FindBreakpointByID(bp_id)
    if not breakpoint.IsValid():
        return False  # an internal breakpoint (a library load): LLDB may stop
    if breakpoint.GetIgnoreCount() > 0:
        return True
    location = breakpoint.FindLocationByID(loc_id)
    return location.IsValid() and location.GetIgnoreCount() > 0


def _hit_is_ignored(thread):
    count = thread.GetStopReasonDataCount()  # (breakpoint id, location id) pairs
    if count < 2:
        return False
    target = thread.GetProcess().GetTarget()
    return all(_location_ignores(target, thread.GetStopReasonDataAtIndex(i),
                                 thread.GetStopReasonDataAtIndex(i + 1))
               for i in range(0, count - 1, 2))


def is_unseen(thread):
    """True only for a stop LLDB will certainly continue from unseen."""
    process = thread.GetProcess()
    key = (process.GetUniqueID(), thread.GetThreadID())
    stop = process.GetStopID()
    reason = thread.GetStopReason()
    if reason == lldb.eStopReasonBreakpoint and _hit_is_ignored(thread):
        _ignored_hits[key] = stop
        return True
    return reason == lldb.eStopReasonTrace and _ignored_hits.get(key) == stop - 1
