/* Registers a range in-process and reads it back through the descriptor,
 * using only the installed headers and library. */
#include <stdio.h>
#include <string.h>

#include <jitunwind/jitunwind.h>

static int self_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    (void)arg;
    memcpy(dst, (const void *)(uintptr_t)addr, len); /* this process's own, valid memory */
    return 0;
}

int main(void)
{
    static char code[64];
    struct jitunwind_memory mem = {sizeof(struct jitunwind_memory), self_read, NULL};
    jitunwind_registry *reg;
    const struct jitunwind_range *r;
    if (jitunwind_jit_register(code, sizeof code, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING,
                               "consumer", 0, NULL) != 0 ||
        jitunwind_registry_new(&reg) != 0 ||
        jitunwind_jit_read_descriptor(reg, &mem, (uint64_t)(uintptr_t)&jitunwind_jit_descriptor,
                                      NULL) != 0)
        return 1;
    r = jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)code + 10);
    printf("libjitunwind %s: %s\n", jitunwind_version_string(), r ? r->name : "(none)");
    return r && strcmp(r->name, "consumer") == 0 ? 0 : 1;
}
