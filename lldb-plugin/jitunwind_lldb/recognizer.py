"""A frame recognizer on _PyEval_EvalFrameDefault: its recognized arguments
are the Python frames that eval-loop activation runs, innermost first, shown
by `frame variable` as `(int) <function>@<file> = <line>`.

(A string value would read better, but LLDB 19 shows host-made char arrays
element by element; an int named after the function prints on one line.)"""

import lldb

import jitunwind as ju

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
            process = thread.GetProcess()
            target = process.GetTarget()
            lines, _ = walk_thread(tgt.state_for(process), thread)
            anchor = None
            for line in lines:
                if line.kind == ju.MIXED_NATIVE and line.pc == frame.GetPC() and \
                        line.sp == frame.GetSP():
                    anchor = line.index
            values = []
            for line in lines:
                if line.kind == ju.MIXED_PYTHON and anchor is not None and line.anchor == anchor:
                    where, _, lineno = line.where.rpartition(":")
                    name = "%s@%s" % (line.text[len("[py] "):], where)
                    values.append(_line_value(target, name, int(lineno) if lineno.isdigit() else -1))
            return values
        except Exception:  # a recognizer must never raise into lldb
            return []
