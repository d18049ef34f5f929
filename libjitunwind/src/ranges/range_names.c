/* The words every output uses for a range's kind, rule and origin (the
 * debugger plugins print the same: jitunwind.ui.labels). */
#include "internal.h"

JITUNWIND_API const char *jitunwind_range_kind_string(uint32_t kind)
{
    switch (kind) {
    case JITUNWIND_KIND_JIT: return "jit";
    case JITUNWIND_KIND_TRAMPOLINE: return "trampoline";
    case JITUNWIND_KIND_OTHER: return "other";
    default: return "?";
    }
}

JITUNWIND_API const char *jitunwind_range_rule_string(uint32_t rule)
{
    switch (rule) {
    case JITUNWIND_RULE_FP_PRESERVING: return "fp-preserving";
    case JITUNWIND_RULE_TRAMPOLINE_FRAMED: return "framed";
    case JITUNWIND_RULE_TRAMPOLINE_SUB8: return "sub8";
    case JITUNWIND_RULE_SCAN: return "fp-or-scan";
    default: return "?";
    }
}

JITUNWIND_API const char *jitunwind_range_origin_string(uint32_t origin)
{
    switch (origin) {
    case JITUNWIND_ORIGIN_USER: return "user";
    case JITUNWIND_ORIGIN_DESCRIPTOR: return "descriptor";
    case JITUNWIND_ORIGIN_PERF_MAP: return "perf-map";
    case JITUNWIND_ORIGIN_INTERPRETER: return "interpreter";
    case JITUNWIND_ORIGIN_GUESS: return "guess";
    default: return "?";
    }
}
