/* Names of the library's enums as every output shows them (the same words
 * as the debugger plugins: jitunwind.ui.labels). */
#include <string.h>

#include "cli.h"

const char *cli_role_name(uint32_t role)
{
    switch (role) {
    case JITUNWIND_ROLE_EVAL: return "eval";
    case JITUNWIND_ROLE_JIT: return "jit";
    case JITUNWIND_ROLE_TRAMPOLINE: return "trampoline";
    default: return "native";
    }
}

const char *cli_shown(const char *text, char *buf, size_t len)
{
    jitunwind_text_escape(text, buf, len);
    return buf;
}

void cli_native_label(const struct cli_native *n, char *buf, size_t len)
{
    char rule[32], shown[4 * JITUNWIND_NAME_MAX];
    if (!n->has_range) {
        snprintf(buf, len, "%s", n->symbol[0] ? cli_shown(n->symbol, shown, sizeof shown) : "??");
        return;
    }
    snprintf(rule, sizeof rule, "%s", jitunwind_range_rule_string(n->range.rule));
    if (n->range.rule == JITUNWIND_RULE_FP_PRESERVING && n->range.frame_size &&
        n->range.frame_size != 16)
        snprintf(rule + strlen(rule), sizeof rule - strlen(rule), "/%u", n->range.frame_size);
    if (n->jit_name[0]) { /* a CPython executor: "py::jit:hot [uop 3/9 _NAME] (file:line)" */
        snprintf(buf, len, "%s [%s %s]", cli_shown(n->jit_name, shown, sizeof shown),
                 jitunwind_range_kind_string(n->range.kind), rule);
        return;
    }
    {
        struct jitunwind_range named = n->range;
        named.name = n->range_name;
        jitunwind_range_label(&named, buf, len);
    }
}
