/* Layouts are checked once, when built, against the width of every field
 * and the size of the object that holds it; a field that starts inside its
 * object but ends past it is refused with its name, before any decoder
 * copies the object into a buffer and loads the field past its end. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jitunwind/dwarf.h"
#include "py_image.h"
#include "python/pyreader.h"
#include "suite.h"

#define V313 0x030d00f0u

/* A 3.13 target whose _Py_DebugOffsets describe `layout` (a damaged copy
 * of the table), with one thread running one frame: opening it either
 * fails (the status, and the message in msg) or walks the frame. */
static int open_with(const struct ju_py_layout *layout, char *msg, size_t cap)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    struct jitunwind_py_frame f[4];
    uint8_t block[2048];
    size_t len, n;
    uint64_t interp, frame;
    int rc;
    pyi_init(&p, V313);
    p.layout = *layout;
    p.layout.rt_interpreters_head = sizeof block;
    ck_assert_int_eq(ju_py_encode_debug_offsets(V313, p.L, NULL, block, sizeof block, &len), 0);
    ju_builder_write(p.b, p.runtime, block, len);
    frame = pyi_frame(&p, pyi_code(&p, "f", "/f.py", 1, 4), 0, 1, 0, 0);
    interp = pyi_interp(&p, 0, 0);
    pyi_thread(&p, interp, frame, 1);
    pyi_set_interpreters(&p, interp);
    mem = ju_builder_memory(p.b);
    rc = jitunwind_pyreader_open(&r, &mem, p.runtime, V313, NULL);
    snprintf(msg, cap, "%s", jitunwind_pyreader_last_error(r)->message);
    if (rc == 0)
        (void)jitunwind_pyreader_frames(r, frame, f, 4, &n); /* the decoder's reads */
    jitunwind_pyreader_free(r);
    pyi_free(&p);
    return rc;
}

START_TEST(the_table_itself_opens)
{
    char msg[JITUNWIND_ERROR_MESSAGE_MAX];
    ck_assert_msg(open_with(ju_py_layout_for(V313, jitunwind_host_arch()), msg, sizeof msg) == 0,
                  "%s", msg);
}
END_TEST

/* co_qualname starts inside the 512 bytes the decoder can copy of a code
 * object but ends 4 bytes past them (and past the 208 bytes the target's
 * co_code_adaptive says the object has): refused, named. Without the check
 * the code decoder loads 8 bytes at head + 508 of its 512-byte buffer. */
START_TEST(a_code_field_ending_past_its_object_is_refused)
{
    char msg[JITUNWIND_ERROR_MESSAGE_MAX];
    struct ju_py_layout L = *ju_py_layout_for(V313, jitunwind_host_arch());
    L.co_qualname = JU_PY_CODE_COPY - 4;
    ck_assert_int_eq(open_with(&L, msg, sizeof msg), JITUNWIND_ECORRUPT);
    ck_assert_msg(strstr(msg, "PyCodeObject.co_qualname (offset 508, 8 bytes)") != NULL, "%s",
                  msg);
}
END_TEST

/* The same for a frame: f_previous's 8 bytes start inside the 256-byte
 * frame the target declares but end past it. */
START_TEST(a_frame_field_ending_past_its_object_is_refused)
{
    char msg[JITUNWIND_ERROR_MESSAGE_MAX];
    struct ju_py_layout L = *ju_py_layout_for(V313, jitunwind_host_arch());
    L.fr_size = JU_PY_FRAME_COPY;
    L.fr_previous = JU_PY_FRAME_COPY - 4;
    ck_assert_int_eq(open_with(&L, msg, sizeof msg), JITUNWIND_ECORRUPT);
    ck_assert_msg(strstr(msg, "fr_previous (offset 252, 8 bytes)") != NULL, "%s", msg);
}
END_TEST

/* One byte field that fits exactly is accepted: the check is by width,
 * not a blanket margin. */
START_TEST(a_field_ending_at_its_object_end_fits)
{
    char msg[JITUNWIND_ERROR_MESSAGE_MAX];
    struct ju_py_layout L = *ju_py_layout_for(V313, jitunwind_host_arch());
    L.fr_owner = L.fr_size - 1;
    ck_assert_msg(open_with(&L, msg, sizeof msg) == 0, "%s", msg);
    L.fr_owner = L.fr_size;
    ck_assert_int_eq(open_with(&L, msg, sizeof msg), JITUNWIND_ECORRUPT);
    ck_assert_msg(strstr(msg, "fr_owner") != NULL, "%s", msg);
}
END_TEST

/* This file is built with -g: its DWARF describes a PyThreadState whose
 * holds_gil (an int in CPython, 4 bytes in the field table) is a char in
 * the struct's last byte, as a hostile or mistaken debug file might. */
typedef struct {
    void *prev;
    char pad[7];
    char holds_gil;
} PyThreadState;
PyThreadState stand_in_thread_state;

START_TEST(a_dwarf_member_ending_past_its_struct_is_refused)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    char self_path[4096];
    ssize_t got = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    const char *msg;
    ck_assert_int_gt(got, 0);
    self_path[got] = 0;
    stand_in_thread_state.holds_gil = 1;
    pyi_init(&p, 0x030f00f0); /* 3.15: the layout reads holds_gil */
    pyi_set_interpreters(&p, pyi_interp(&p, 0, 0));
    mem = ju_builder_memory(p.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030f00f0,
                                             JITUNWIND_PYREADER_OPTS(.module = self_path)),
                     JITUNWIND_ECORRUPT);
    msg = jitunwind_pyreader_last_error(r)->message;
    ck_assert_msg(strstr(msg, "PyThreadState.ts_holds_gil (offset 15, 4 bytes) past "
                              "sizeof(PyThreadState), 16") != NULL,
                  "%s", msg);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

/* The JIT view's layout from DWARF: trace entries and stencil groups as an
 * unexpected build's DWARF might describe them, a 12-byte
 * _PyUOpInstruction without operands and an 8-byte StencilGroup without a
 * code size. DWARF's sizes are adopted; the operands and the code size
 * keep the table's offsets, which now end past them: refused by name (the
 * JIT view then reads nothing, check_py_jit_view.c), where before the view
 * loaded operand0 past each 12-byte entry of its copy of the trace. */
typedef struct {
    uint16_t opcode, oparg;
    uint32_t target, spare;
} _PyUOpInstruction;
typedef struct {
    uint64_t emit;
} StencilGroup;
_PyUOpInstruction stand_in_uop;
StencilGroup stand_in_stencil_group;

START_TEST(a_jit_layout_from_dwarf_with_fields_past_its_objects_is_refused)
{
    const struct ju_py_layout *table = ju_py_layout_for(0x030e07f0, jitunwind_host_arch());
    struct ju_py_layout L = *table;
    struct jitunwind_py_dwarf_report rep;
    jitunwind_dwarf_types *types;
    char self_path[4096], why[256];
    ssize_t got = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    ck_assert_int_gt(got, 0);
    self_path[got] = 0;
    stand_in_uop.spare = stand_in_stencil_group.emit = 1;
    ck_assert_int_eq(jitunwind_dwarf_types_open(&types, self_path), 0);
    ju_py_jit_apply_dwarf(types, &L.jit, &rep);
    jitunwind_dwarf_types_free(types);
    ck_assert_uint_eq(L.jit.uop_size, 12);
    ck_assert_uint_eq(L.jit.stencil_size, 8);
    ck_assert_str_eq(rep.first_mismatch, "_PyUOpInstruction.sizeof: table 24, DWARF 12");
    ck_assert_int_eq(ju_py_jit_layout_check(&L, why, sizeof why), JITUNWIND_ECORRUPT);
    ck_assert_str_eq(why, "CPython 3.14: _PyUOpInstruction.uop_operand0 (offset 8, 8 bytes) ends "
                          "past the 12 bytes of _PyUOpInstruction that uop_size gives");
    L.jit.uop_size = table->jit.uop_size; /* then the next refusal: the stencil group */
    ck_assert_int_eq(ju_py_jit_layout_check(&L, why, sizeof why), JITUNWIND_ECORRUPT);
    ck_assert_str_eq(why, "CPython 3.14: StencilGroup.stencil_code_size (offset 8, 8 bytes) ends "
                          "past the 8 bytes of StencilGroup that stencil_size gives");
    L.jit.stencil_size = table->jit.stencil_size;
    ck_assert_msg(ju_py_jit_layout_check(&L, why, sizeof why) == 0, "%s", why);
}
END_TEST

/* Checks of the JIT layout that are not about one field's fit: the
 * strides the view steps by, and vm_data flags inside the word read. */
START_TEST(a_jit_layout_without_strides_or_with_wide_flags_is_refused)
{
    const struct ju_py_layout *table = ju_py_layout_for(0x030e07f0, jitunwind_host_arch());
    struct ju_py_layout L = *table;
    char why[256];
    L.jit.exit_size = JU_PY_NONE;
    ck_assert_int_eq(ju_py_jit_layout_check(&L, why, sizeof why), JITUNWIND_ECORRUPT);
    ck_assert_str_eq(why, "CPython 3.14: no exit_size, the stride of the JIT view's arrays");
    L = *table;
    L.jit.vm_chain_depth.bit = 30;
    ck_assert_int_eq(ju_py_jit_layout_check(&L, why, sizeof why), JITUNWIND_ECORRUPT);
    ck_assert_str_eq(why, "CPython 3.14: _PyExecutorObject.vm_chain_depth (6 bits from bit 30) "
                          "is not a flag of the 32-bit word read");
    L = *table;
    L.jit.known = 0; /* no JIT view: nothing to refuse */
    L.jit.exit_size = JU_PY_NONE;
    ck_assert_int_eq(ju_py_jit_layout_check(&L, why, sizeof why), 0);
}
END_TEST

/* Every static table passes the check it is held to at run time. */
START_TEST(every_table_passes_the_check)
{
    static const uint32_t versions[] = {0x030b0000, 0x030c0000, 0x030d0000, 0x030e0000,
                                        0x030f0000, 0x03100000};
    static const int arches[] = {JITUNWIND_ARCH_X86_64, JITUNWIND_ARCH_AARCH64};
    char why[256];
    size_t v, a, seen = 0, jit = 0;
    int ft;
    for (v = 0; v < sizeof versions / sizeof versions[0]; v++)
        for (ft = 0; ft < 2; ft++)
            for (a = 0; a < 2; a++) {
                const struct ju_py_layout *L = ju_py_layout_for_build(versions[v], ft, arches[a]);
                if (!L)
                    continue;
                seen++;
                ck_assert_msg(ju_py_layout_check(L, why, sizeof why) == 0, "%s", why);
                ck_assert_msg(ju_py_jit_layout_check(L, why, sizeof why) == 0, "%s", why);
                jit += L->jit.known;
            }
    ck_assert_uint_eq(seen, 20); /* 3.11 and 3.12 per architecture, 3.13-3.16 GIL and t */
    /* The JIT view of 3.13 to 3.16, GIL and t, per architecture (3.15 and
     * 3.16 with every offset JU_PY_FROM_DWARF: absent until DWARF gives it). */
    ck_assert_uint_eq(jit, 16);
}
END_TEST

/* Widths come from the field table, not from the caller: a 1-byte owner
 * is read as 1 byte, a 4-byte first line as 4, and a field outside the
 * copy it is asked of reads as 0 rather than past the buffer. */
START_TEST(accessors_take_the_width_from_the_layout)
{
    struct ju_py_layout L = *ju_py_layout_for(V313, jitunwind_host_arch());
    uint8_t buf[16];
    memset(buf, 0xff, sizeof buf);
    L.fr_owner = 3;
    L.co_firstlineno = 4;
    L.co_qualname = 12;
    ck_assert_uint_eq(ju_py_fields[JU_PYF_fr_owner].width, 1);
    ck_assert_uint_eq(ju_py_get(&L, JU_PYF_fr_owner, buf, sizeof buf), 0xff);
    ck_assert_uint_eq(ju_py_get(&L, JU_PYF_co_firstlineno, buf, sizeof buf), 0xffffffffu);
    ck_assert_uint_eq(ju_py_get(&L, JU_PYF_co_qualname, buf, sizeof buf), 0); /* 12 + 8 > 16 */
    L.co_qualname = JU_PY_NONE;
    ck_assert_uint_eq(ju_py_get(&L, JU_PYF_co_qualname, buf, sizeof buf), 0);
}
END_TEST

int main(void)
{
    return ju_run_tests("py_layout_check",
                        JU_TESTS(the_table_itself_opens,
                                 a_code_field_ending_past_its_object_is_refused,
                                 a_frame_field_ending_past_its_object_is_refused,
                                 a_field_ending_at_its_object_end_fits,
                                 a_dwarf_member_ending_past_its_struct_is_refused,
                                 a_jit_layout_from_dwarf_with_fields_past_its_objects_is_refused,
                                 a_jit_layout_without_strides_or_with_wide_flags_is_refused,
                                 every_table_passes_the_check,
                                 accessors_take_the_width_from_the_layout));
}
