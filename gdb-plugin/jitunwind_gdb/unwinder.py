"""A gdb.unwinder that claims only PCs inside registered JIT/trampoline
ranges and asks the library for the caller's registers by the range's rule.
Every other PC is rejected with one bisect."""

import gdb
import gdb.unwinder

import jitunwind as ju
from jitunwind.ui.stack import lookup_pc

from . import state as st

REGS = {
    ju.ARCH_X86_64: ("rip", "rsp", "rbp", None),
    ju.ARCH_AARCH64: ("pc", "sp", "x29", "x30"),
}


class _FrameId:
    """gdb 13 wants an object with gdb.Value `sp` and `pc` attributes."""

    def __init__(self, sp, pc):
        self.sp = sp
        self.pc = pc


class JitUnwinder(gdb.unwinder.Unwinder):
    def __init__(self, plugin):
        super().__init__("jitunwind")
        self._plugin = plugin
        self._warned = False

    def __call__(self, pending):
        try:
            return self._unwind(pending)
        except ju.StepError:
            return None  # the rule cannot apply here: let gdb's unwinders try
        except Exception as exc:  # never raise into gdb
            if not self._warned:
                self._warned = True
                print("jitunwind: unwinder disabled for this frame: %s" % exc)
            return None

    def _unwind(self, pending):
        state = self._plugin.state_for_unwinder()
        if state is None or not len(state.registry):
            return None
        arch = st.arch_of(pending)
        if arch is None:
            return None
        pc_name, sp_name, fp_name, lr_name = REGS[arch]
        pc = int(pending.read_register(pc_name))
        level = pending.level()
        rng = state.lookup(lookup_pc(pc, level == 0, arch))
        if rng is None:
            return None
        sp = int(pending.read_register(sp_name))
        fp = int(pending.read_register(fp_name))
        lr = int(pending.read_register(lr_name)) if (lr_name and level == 0) else None
        cpc, csp, cfp = ju.step_range(arch, rng, state.memory, pc, sp, fp, lr,
                                      innermost=(level == 0), registry=state.registry)
        ptr = code_ptr = gdb.lookup_type("void").pointer()
        start = rng.start
        if rng.stride:
            start += ((pc - rng.start) // rng.stride) * rng.stride
        info = pending.create_unwind_info(
            _FrameId(gdb.Value(csp).cast(ptr), gdb.Value(start).cast(code_ptr)))
        info.add_saved_register(pc_name, gdb.Value(cpc).cast(code_ptr))
        info.add_saved_register(sp_name, gdb.Value(csp).cast(ptr))
        info.add_saved_register(fp_name, gdb.Value(cfp).cast(ptr))
        return info
