/* A direct-mapped table of CFI rows keyed by (module index, address in the
 * module's file). A slot keeps its full key and is used only when both
 * parts match: two keys hashing to one slot replace each other, never
 * answer for each other. The rules' operations are copied into the slot,
 * so nothing points into libdw's frames, which are freed after each step. */
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi_row_cache.h"

struct slot {
    uint64_t vaddr;
    uint32_t module;
    uint8_t used, found;
    uint8_t kind[3], nops[3]; /* cfa, ra, fp */
    Dwarf_Op ops[JU_CFI_ROW_OPS];
    struct ju_cfi_saves saves;
};

struct ju_cfi_row_cache {
    struct slot slots[JU_CFI_ROW_SLOTS];
};

struct ju_cfi_row_cache *ju_cfi_row_cache_new(void)
{
    return calloc(1, sizeof(struct ju_cfi_row_cache));
}

void ju_cfi_row_cache_free(struct ju_cfi_row_cache *c)
{
    free(c);
}

size_t ju_cfi_row_cache_slot(uint32_t module, uint64_t vaddr)
{
    uint64_t h = (vaddr ^ ((uint64_t)module << 48)) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 40) & (JU_CFI_ROW_SLOTS - 1);
}

int ju_cfi_row_cache_get(struct ju_cfi_row_cache *c, uint32_t module, uint64_t vaddr,
                         int *found, struct ju_cfi_row *row)
{
    const struct slot *s = &c->slots[ju_cfi_row_cache_slot(module, vaddr)];
    struct ju_cfi_rule *rules[3];
    size_t i, at = 0;
    if (!s->used || s->module != module || s->vaddr != vaddr)
        return 0;
    *found = s->found;
    if (!s->found)
        return 1;
    row->saves = s->saves;
    rules[0] = &row->cfa;
    rules[1] = &row->ra;
    rules[2] = &row->fp;
    for (i = 0; i < 3; i++) {
        rules[i]->kind = s->kind[i];
        rules[i]->nops = s->nops[i];
        rules[i]->ops = s->nops[i] ? &s->ops[at] : NULL;
        at += s->nops[i];
    }
    return 1;
}

void ju_cfi_row_cache_put(struct ju_cfi_row_cache *c, uint32_t module, uint64_t vaddr,
                          int found, const struct ju_cfi_row *row)
{
    struct slot *s = &c->slots[ju_cfi_row_cache_slot(module, vaddr)];
    const struct ju_cfi_rule *rules[3];
    size_t i, at = 0;
    if (found) {
        rules[0] = &row->cfa;
        rules[1] = &row->ra;
        rules[2] = &row->fp;
        for (i = 0; i < 3; i++) {
            size_t n = rules[i]->kind == JU_RULE_OPS ? rules[i]->nops : 0;
            if (n > JU_CFI_ROW_OPS - at)
                return; /* too long to keep: the slot keeps what it had */
            at += n;
        }
        for (i = 0, at = 0; i < 3; i++) {
            size_t n = rules[i]->kind == JU_RULE_OPS ? rules[i]->nops : 0;
            s->kind[i] = (uint8_t)rules[i]->kind;
            s->nops[i] = (uint8_t)n;
            if (n)
                memcpy(&s->ops[at], rules[i]->ops, n * sizeof *rules[i]->ops);
            at += n;
        }
        s->saves = row->saves;
    }
    s->used = 1;
    s->found = (uint8_t)(found != 0);
    s->module = module;
    s->vaddr = vaddr;
}
