/* CPython's perf-trampoline arenas, found from _PyRuntime.ceval.perf: a
 * list (newest first, through `prev`) of
 *   struct code_arena_st { char *start_addr, *current_addr; size_t size,
 *                          size_left, code_size; struct code_arena_st *prev; }
 * Each arena is filled with copies of the template at a fixed stride;
 * [start_addr, current_addr) have been handed out. */
#include "python/pyreader.h"
#include "base/trampoline_stride.h"

#define MAX_ARENAS 4096u
#define MAX_ARENA_SIZE (16u << 20)
#define MAX_TEMPLATE 256u

/* An arena whose copies a perf map or jitdump named only in part (CPython
 * buffers its jitdump: the newest copies may not be in the file yet): the
 * copies past the last one a range covers, as *r; 0 when none is left. */
static int uncovered_tail(const jitunwind_registry *reg, struct jitunwind_range *r)
{
    uint64_t tail = r->end, copies = (r->end - r->start) / r->stride, k;
    for (k = copies + ((r->end - r->start) % r->stride != 0); k-- > 0;) {
        uint64_t at = r->start + k * r->stride;
        if (jitunwind_registry_lookup(reg, at) ||
            jitunwind_registry_lookup(reg, at + r->stride - 1 < r->end ? at + r->stride - 1
                                                                       : r->end - 1))
            break;
        tail = at;
    }
    if (tail == r->end)
        return 0;
    r->start = tail;
    return 1;
}

JITUNWIND_API int jitunwind_pyreader_trampoline_ranges(jitunwind_pyreader *r,
                                                       jitunwind_registry *reg, int arch,
                                                       size_t *added)
{
    struct ju_cycle seen = {0, 1, 0};
    uint64_t arena;
    size_t n = 0, count = 0;
    int status = 0;
    if (!r || !reg)
        return JITUNWIND_EINVAL;
    if (added)
        *added = 0;
    if (r->layout->rt_perf_code_arena == JU_PY_NONE)
        return ju_fail(&r->err, JITUNWIND_EUNSUPPORTED, 0,
                       "where %s keeps its trampoline arenas is not known", r->layout->name);
    if (ju_py_fetch(&r->mem, r->layout, r->runtime, JU_PYF_rt_perf_code_arena, &arena) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, r->runtime, "the runtime is unreadable");
    if (arena == 0)
        return ju_fail(&r->err, JITUNWIND_ENOTFOUND, 0, "perf trampolines were never activated");
    while (arena) {
        uint8_t raw[48], first[MAX_TEMPLATE];
        uint64_t start, current, size, code_size, stride;
        struct jitunwind_range range = {0};
        int rule;
        if (ju_cycle_seen(&seen, arena)) {
            status = ju_fail(&r->err, JITUNWIND_ELOOP, arena, "the trampoline arena list loops");
            break;
        }
        if (++n > MAX_ARENAS) {
            status = ju_fail(&r->err, JITUNWIND_ELIMIT, arena, "more than %u arenas", MAX_ARENAS);
            break;
        }
        if (ju_read(&r->mem, arena, raw, sizeof raw) < 0) {
            status = ju_fail(&r->err, JITUNWIND_EREAD, arena, "arena %#llx is unreadable",
                             (unsigned long long)arena);
            break;
        }
        start = ju_load_u64(raw);
        current = ju_load_u64(raw + 8);
        size = ju_load_u64(raw + 16);
        code_size = ju_load_u64(raw + 32);
        arena = ju_load_u64(raw + 40);
        if (start == 0 || current < start || size > MAX_ARENA_SIZE || current - start > size ||
            code_size == 0 || code_size > MAX_TEMPLATE)
            continue; /* implausible: skip this arena, keep the others */
        if (current == start || ju_read(&r->mem, start, first, (size_t)code_size) < 0)
            continue;
        rule = jitunwind_classify_trampoline(arch, first, (size_t)code_size);
        stride = rule > 0 ? ju_trampoline_stride(&r->mem, start, current, first, code_size) : 0;
        if (rule < 0 || stride == 0 || stride > UINT32_MAX)
            continue;
        range.start = start;
        range.end = current;
        range.kind = JITUNWIND_KIND_TRAMPOLINE;
        range.rule = (uint32_t)rule;
        range.stride = (uint32_t)stride;
        range.origin = JITUNWIND_ORIGIN_INTERPRETER;
        range.name = "py::<perf trampoline>";
        if (jitunwind_registry_add(reg, &range) == 0)
            count++;
        else if (uncovered_tail(reg, &range) && jitunwind_registry_add(reg, &range) == 0)
            count++;
    }
    if (added)
        *added = count;
    return status;
}
