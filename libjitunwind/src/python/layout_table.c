/* Layout tables, one per supported CPython version.
 *
 * 3.11 (x86-64 and AArch64 LP64, release and GIL builds; the structs hold
 * only pointers and ints, so both architectures share the offsets): checked
 * with `gdb ptype /o` against Debian's python3.11 3.11.2 (python3.11-dbg)
 * and pyenv's 3.11.7 (libpython3.11.so with DWARF), and end to end by the
 * tests that decode live 3.11 processes (tests/unit/check_py_live.c). */
#include "python/layout.h"

static const struct ju_py_layout PY311 = {
    .name = "CPython 3.11",
    .version = 0x030b0000,
    .rt_interpreters_head = 40,
    .rt_gil_holder = 576,           /* gilstate.tstate_current */
    .interp_next = 0,
    .interp_id = 48,
    .interp_threads_head = 16,
    .ts_next = 8,
    .ts_interp = 16,
    .ts_thread_id = 152,
    .ts_native_thread_id = 160,
    .ts_current_frame = JU_PY_NONE,
    .ts_cframe = 56,
    .cframe_current_frame = 8,
    .fr_size = 72,
    .fr_code = 32,
    .fr_previous = 48,
    .fr_instr = 56,
    .fr_owner = 69,
    .fr_is_entry = 68,
    .instr_is_previous = 1,
    .owner_generator = 1,
    .owner_sentinel_min = 0,
    .code_tag_mask = 0,
    .co_size = 192,
    .co_filename = 112,
    .co_name = 120,
    .co_qualname = 128,
    .co_linetable = 136,
    .co_firstlineno = 72,
    .co_code_adaptive = 184,
    .ob_type = 8,
    .tp_name = 24,
    .bytes_size = 16,
    .bytes_sval = 32,
    .str_length = 16,
    .str_state = 32,
    .str_ascii_size = 48,
    .str_compact_size = 72,
    .str_legacy_data = 72,
    .st_kind_shift = 2,
    .st_compact_bit = 5,
    .st_ascii_bit = 6,
    .st_ready_bit = 7,
};

static const struct ju_py_layout *const LAYOUTS[] = {&PY311};

const struct ju_py_layout *ju_py_layout_for(uint32_t version_hex)
{
    size_t i;
    for (i = 0; i < sizeof LAYOUTS / sizeof LAYOUTS[0]; i++)
        if ((version_hex & 0xffff0000u) == LAYOUTS[i]->version)
            return LAYOUTS[i];
    return NULL;
}
