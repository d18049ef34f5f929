"""A frame recognizer on _PyEval_EvalFrameDefault (and the parts a compiler
split off from it: `.cold`, `.part.N`): its recognized arguments
are the Python frames that eval-loop activation runs, innermost first, shown
by `frame variable` as `(int) <function>@<file> = <line>`.

(A string value would read better, but LLDB 19 shows host-made char arrays
element by element; an int named after the function prints on one line.)"""

import lldb

from jitunwind.ui.labels import escaped, python_name

from . import images
from . import target as tgt
from .walk import walk_thread


def _line_value(target, name, line):
    data = lldb.SBData.CreateDataFromSInt32Array(target.GetByteOrder(),
                                                 target.GetAddressByteSize(), [line])
    return target.CreateValueFromData(name, data, target.GetBasicType(lldb.eBasicTypeInt))


class EvalFrameRecognizer:
    def get_recognized_arguments(self, frame):
        try:
            thread = frame.GetThread()
            target = thread.GetProcess().GetTarget()
            images.ensure_image(target)  # this recognizer shadows FirstFrameRecognizer here
            entries, _ = walk_thread(tgt.state_for(thread.GetProcess()), thread)
            anchor = None
            for e in entries:
                if e.pyframe is None and e.native.pc == frame.GetPC() and \
                        e.native.sp == frame.GetSP():
                    anchor = e.index
            return [_line_value(target, "%s@%s" % (python_name(e.pyframe),
                                                   escaped(e.pyframe.filename)),
                                e.pyframe.line if e.pyframe.line > 0 else -1)
                    for e in entries
                    if e.pyframe is not None and anchor is not None and e.anchor == anchor]
        except Exception:  # a recognizer must never raise into lldb
            return []
