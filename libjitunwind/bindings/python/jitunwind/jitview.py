"""The JIT developer view (CPython 3.13+; 3.15 from DWARF) for the debugger plugins:
executors, their traces and exits, and which uop / bytecode instruction /
line a PC is in. The library computes everything (python_jit.h, jit_view.c);
this module converts and formats, shared by the GDB and LLDB commands."""

import collections
import ctypes

from . import _ffi
from ._ffi import text as _text
from . import JitunwindError, PYEXEC_COLD_EXIT, PYEXEC_DELETED, ENOTFOUND, library

REGION_UNKNOWN, REGION_SHIM, REGION_UOP, REGION_FATAL, REGION_TAIL = range(5)
TARGET_SOURCES = {0: "", 1: "", 2: "via error", 3: "via exit", 4: "as before"}
MAX_UOPS = 4096
MAX_EXECUTORS = 8192  # listed per command (12 MB of details at most)

Uop = collections.namedtuple(
    "Uop", "index opcode oparg format target_source depth raw_target target line code_offset "
           "code_size operand0 operand1 name")
JitExit = collections.namedtuple("JitExit", "index target line executor")
Detail = collections.namedtuple(
    "Detail", "address interp jit_code jit_size code flags first_line qualname filename trace "
              "jit_side_entry uop_count exit_count shim_size fatal_offset fatal_size enter_index "
              "enter_line valid linked warm chain_depth vm_opcode vm_oparg have_stencils "
              "have_names missing")
JitPc = collections.namedtuple(
    "JitPc", "pc executor jit_code offset region uop_count uop qualname filename first_line code "
             "label missing name")


def _lib():
    lib = library()
    _ffi.declare_jitview(lib)
    return lib


def _raise(reader, rc):
    raise JitunwindError(rc, reader._detail())


def _uop(u):
    return Uop(u.index, u.opcode, u.oparg, u.format, u.target_source, u.depth, u.raw_target,
               u.target, u.line, u.code_offset, u.code_size, u.operand0, u.operand1,
               _text(u.name))


def _detail(d):
    e = d.ex
    return Detail(e.address, e.interp, e.jit_code, e.jit_size, e.code, e.flags, e.first_line,
                  _text(e.qualname), _text(e.filename), d.trace, d.jit_side_entry, d.uop_count,
                  d.exit_count, d.shim_size, d.fatal_offset, d.fatal_size, d.enter_index,
                  d.enter_line, d.valid, d.linked, d.warm, d.chain_depth, d.vm_opcode,
                  d.vm_oparg, bool(d.have_stencils), bool(d.have_names), _text(d.missing))


def detail(reader, address):
    """The executor's header and vm_data (no trace read: fatal_offset -1)."""
    d = _ffi.PyExecutorDetail()
    rc = _lib().jitunwind_pyreader_executor_detail(reader._handle, address, ctypes.byref(d))
    if rc < 0:
        _raise(reader, rc)
    return _detail(d)


def trace(reader, address, code=0):
    """(uops, detail, error): detail has the stencil layout; error is None
    or the JitunwindError that cut the trace short. `code`: the code object
    whose frame runs the trace (every uop's line is computed in it); 0: the
    executor's own (lines of uops at depth 0 only)."""
    arr = (_ffi.PyUop * MAX_UOPS)()
    d = _ffi.PyExecutorDetail()
    n = ctypes.c_size_t()
    rc = _lib().jitunwind_pyreader_executor_trace(reader._handle, address, code, arr, MAX_UOPS,
                                                  ctypes.byref(n), ctypes.byref(d))
    if rc < 0 and n.value == 0 and not d.ex.address:
        _raise(reader, rc)
    return [_uop(u) for u in arr[:n.value]], _detail(d), (
        JitunwindError(rc, reader._detail()) if rc < 0 else None)


def exits(reader, address):
    arr = (_ffi.PyJitExit * MAX_UOPS)()
    n = ctypes.c_size_t()
    rc = _lib().jitunwind_pyreader_executor_exits(reader._handle, address, arr, MAX_UOPS,
                                                  ctypes.byref(n))
    out = [JitExit(x.index, x.target, x.line, x.executor) for x in arr[:n.value]]
    return out, (JitunwindError(rc, reader._detail()) if rc < 0 else None)


def jit_pc(reader, pc, code=0):
    """The JitPc of `pc`, or None when no executor's code holds it."""
    lib = _lib()
    w = _ffi.PyJitPc()
    rc = lib.jitunwind_pyreader_jit_pc(reader._handle, pc, code, ctypes.byref(w))
    if rc == ENOTFOUND:
        return None
    if rc < 0:
        _raise(reader, rc)
    buf = ctypes.create_string_buffer(128)
    lib.jitunwind_py_jit_pc_label(ctypes.byref(w), buf, len(buf))
    name = ctypes.create_string_buffer(2048)
    lib.jitunwind_py_jit_frame_name(ctypes.byref(w), name, len(name))
    return JitPc(w.pc, w.executor, w.jit_code, w.offset, w.region, w.uop_count, _uop(w.uop),
                 _text(w.ex.qualname), _text(w.ex.filename), w.ex.first_line, w.ex.code,
                 _text(buf.value), _text(w.missing), _text(name.value))


def frame_label(where):
    """`py::jit:hot [uop 17/42 _CALL_BUILTIN_FAST] (app.py:12)` for a JitPc
    (jitunwind_py_jit_frame_name: the uop's line)."""
    return where.name


def _state(d):
    if d.flags & PYEXEC_COLD_EXIT:
        return "cold exit"
    if d.flags & PYEXEC_DELETED or d.valid == 0:
        return "invalidated"
    return "valid"


Row = collections.namedtuple("Row", "detail exits name parent")


def listing(reader):
    """(rows, notes): every executor with its detail and exits; executors
    without a code object (side-exit traces) are named after the executor
    whose exit links to them."""
    lib = _lib()
    arr = (_ffi.PyExecutorDetail * MAX_EXECUTORS)()
    n = ctypes.c_size_t()
    rc = lib.jitunwind_pyreader_executor_details(reader._handle, arr, MAX_EXECUTORS,
                                                 ctypes.byref(n))
    notes = ["executor list: %s" % JitunwindError(rc, reader._detail())] if rc < 0 else []
    rows, parent = [], {}
    xarr = (_ffi.PyJitExit * MAX_UOPS)()
    for raw in arr[:n.value]:
        d = _detail(raw)
        m = ctypes.c_size_t()
        rc = lib.jitunwind_pyreader_detail_exits(reader._handle, ctypes.byref(raw), xarr,
                                                 MAX_UOPS, ctypes.byref(m))
        xs = [JitExit(x.index, x.target, x.line, x.executor) for x in xarr[:m.value]]
        if rc < 0:
            notes.append("exits of %#x: %s" % (d.address, JitunwindError(rc, reader._detail())))
        for x in xs:
            if x.executor and x.executor != d.address:
                parent.setdefault(x.executor, d.address)
        rows.append(Row(d, xs, None, None))
    by_addr = {r.detail.address: r for r in rows}

    def name_of(addr, depth=0):
        r = by_addr.get(addr)
        if r is None:
            return "<executor %#x>" % addr
        d = r.detail
        if d.flags & PYEXEC_COLD_EXIT:
            return "<cold exit>"
        if d.code:
            return "%s (%s:%d)" % (d.qualname, d.filename, d.first_line)
        if addr in parent and depth < 64:
            return "side exit of " + name_of(parent[addr], depth + 1)
        return "<no code object>"

    rows = [r._replace(name=name_of(r.detail.address), parent=parent.get(r.detail.address))
            for r in rows]
    missing = {r.detail.missing for r in rows if r.detail.missing}
    notes += ["missing: %s" % m for m in sorted(missing)]
    return rows, notes


def format_listing(rows):
    lines = ["%-4s %-18s %-5s %-7s %-39s %-11s %-6s %-5s %s" % (
        "#", "Executor", "Uops", "Bytes", "Code range", "State", "Enter", "Exits", "Code object")]
    for i, r in enumerate(rows):
        d = r.detail
        linked = sum(1 for x in r.exits if x.executor)
        rng = "%#x-%#x" % (d.jit_code, d.jit_code + d.jit_size) if d.jit_code else "-"
        enter = str(d.enter_index) if d.enter_index >= 0 else "-"
        lines.append("%-4d %#018x %-5d %-7d %-39s %-11s %-6s %-5s %s" % (
            i, d.address, d.uop_count, d.jit_size, rng, _state(d), enter,
            "%d/%d" % (linked, len(r.exits)), r.name))
    return lines


def _uop_target(u):
    if u.target < 0:
        return "-"
    text = "%d" % u.target
    if u.line > 0:
        text += " -> line %d" % u.line
    elif u.depth:
        text += " (callee)"
    how = TARGET_SOURCES.get(u.target_source, "")
    return text + (" [%s]" % how if how else "")


def uop_header(u, count):
    """The one-line header of a uop (jit-disas and info jit-executor)."""
    where = "+%#x %d bytes" % (u.code_offset, u.code_size) if u.code_offset >= 0 else "?"
    return "uop %d/%d %s oparg=%d target %s (%s)" % (u.index, count, u.name, u.oparg,
                                                    _uop_target(u), where)


def format_executor(reader, address, code=0):
    """Lines of `info jit-executor`: header, vm_data, the trace and the exits."""
    uops, d, err = trace(reader, address, code)
    xs, xerr = exits(reader, address)
    out = ["Executor %#x: %s" % (d.address, ("%s (%s:%d)" % (d.qualname, d.filename, d.first_line))
                                  if d.code else "<no code object>"),
           "  code %#x-%#x (%d bytes), %s" % (
               d.jit_code, d.jit_code + d.jit_size, d.jit_size,
               "shim %d bytes, side entry %#x" % (d.shim_size, d.jit_side_entry) if d.shim_size
               else "no shim of its own (uops from jit_code)"),
           "  vm_data: %s, linked=%s, chain depth=%s, warm=%s, ENTER_EXECUTOR at %s%s" % (
               _state(d), _flag(d.linked), _flag(d.chain_depth), _flag(d.warm),
               d.enter_index if d.enter_index >= 0 else "-",
               " (line %d)" % d.enter_line if d.enter_line > 0 else ""),
           "  trace %#x: %d uops" % (d.trace, d.uop_count)]
    if d.missing:
        out.append("  missing: %s" % d.missing)
    out.append("  %-5s %-32s %-6s %-28s %s" % ("#", "Uop", "Oparg", "Target", "Code"))
    for u in uops:
        where = "+%#06x %5d" % (u.code_offset, u.code_size) if u.code_offset >= 0 else "?"
        out.append("  %-5d %-32s %-6d %-28s %s" % (u.index, u.name, u.oparg, _uop_target(u),
                                                  where))
    if d.fatal_offset >= 0:
        out.append("  %-5s %-32s %-6s %-28s +%#06x %5d" % ("-", "_FATAL_ERROR", "", "",
                                                          d.fatal_offset, d.fatal_size))
    if err is not None:
        out.append("  (trace cut short: %s)" % err)
    out.append("  exits: %d" % len(xs))
    for x in xs:
        linked = "executor %#x" % x.executor if x.executor else "cold (not linked)"
        line = " (line %d)" % x.line if x.line > 0 else ""
        out.append("    exit %-3d target %d%s -> %s" % (x.index, x.target, line, linked))
    if xerr is not None:
        out.append("  (exits cut short: %s)" % xerr)
    return out


def _flag(v):
    return "?" if v < 0 else str(v)


def disas_headers(reader, address):
    """(detail, {code address: [header lines]}) for jit-disas: the shim,
    each uop (zero-sized ones share the next one's address), _FATAL_ERROR."""
    uops, d, _ = trace(reader, address)
    heads = collections.OrderedDict()
    if d.jit_code and d.shim_size:
        heads.setdefault(d.jit_code, []).append("shim (%d bytes)" % d.shim_size)
    for u in uops:
        if u.code_offset >= 0:
            heads.setdefault(d.jit_code + u.code_offset, []).append(uop_header(u, d.uop_count))
    if d.fatal_offset >= 0:
        heads.setdefault(d.jit_code + d.fatal_offset, []).append(
            "_FATAL_ERROR (%d bytes)" % d.fatal_size)
    return d, heads


def format_jit_pc(where):
    if where is None:
        return ["No executor's code holds that address."]
    out = ["%#x is in executor %#x at +%#x: %s" % (where.pc, where.executor, where.offset,
                                                    where.label or "region unknown"),
           "  %s" % frame_label(where)]
    if where.region == REGION_UOP:
        out.append("  " + uop_header(where.uop, where.uop_count))
    if where.missing:
        out.append("  missing: %s" % where.missing)
    return out


def resolve_executor(reader, arg):
    """An executor address from `ADDR|N` (N: row of info jit-executors; an
    address inside an executor's code also names it)."""
    text = arg.strip()
    if not text:
        raise ValueError("give an executor address or its number in info jit-executors")
    value = int(text, 0)
    if value < 65536:
        executors, _ = reader.executors()
        if value >= len(executors):
            raise ValueError("no executor #%d (%d listed)" % (value, len(executors)))
        return executors[value].address
    where = jit_pc(reader, value)
    return where.executor if where is not None else value
