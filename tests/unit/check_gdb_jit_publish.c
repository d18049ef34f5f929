/* In-process publishing through the GDB JIT interface (image.h), read back
 * as a debugger would: walk __jit_debug_descriptor's list, open each
 * object with libelf, count its symbols. Batching (at most
 * JITUNWIND_GDB_JIT_RANGES_PER_OBJECT ranges an object), republishing on
 * unregister, ranges registered before publishing was turned on, reset
 * and turning it off; every change announced through
 * __jit_debug_register_code with the right action. */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"
#include "suite.h"

struct jit_code_entry {
    struct jit_code_entry *next_entry, *prev_entry;
    const char *symfile_addr;
    uint64_t symfile_size;
};
struct jit_descriptor {
    uint32_t version, action_flag;
    struct jit_code_entry *relevant_entry, *first_entry;
};
extern struct jit_descriptor __jit_debug_descriptor;

#define PER JITUNWIND_GDB_JIT_RANGES_PER_OBJECT

static uint8_t *code;

/* Objects in the list, and the function symbols in all of them. */
static size_t walk(size_t *symbols, int *found_name, const char *name)
{
    size_t objects = 0;
    struct jit_code_entry *e, *prev = NULL;
    *symbols = 0;
    *found_name = 0;
    elf_version(EV_CURRENT);
    for (e = __jit_debug_descriptor.first_entry; e; prev = e, e = e->next_entry) {
        Elf *elf = elf_memory((char *)(uintptr_t)e->symfile_addr, e->symfile_size);
        Elf_Scn *scn = NULL;
        ck_assert_ptr_eq(e->prev_entry, prev);
        ck_assert_ptr_nonnull(elf);
        while ((scn = elf_nextscn(elf, scn))) {
            GElf_Shdr sh;
            Elf_Data *d;
            gelf_getshdr(scn, &sh);
            if (sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
                continue;
            for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
                GElf_Sym sym;
                gelf_getsym(d, (int)i, &sym);
                (*symbols)++;
                if (name && strcmp(elf_strptr(elf, sh.sh_link, sym.st_name), name) == 0)
                    *found_name = 1;
            }
        }
        elf_end(elf);
        objects++;
    }
    return objects;
}

static int read_self(void *arg, uint64_t addr, void *dst, size_t len)
{
    (void)arg;
    memcpy(dst, (const void *)(uintptr_t)addr, len); /* this process's own images */
    return 0;
}

START_TEST(batches_republishes_and_withdraws)
{
    jitunwind_jit_id ids[3 * PER];
    struct jitunwind_gdb_jit_status st;
    size_t i, symbols, n = 2 * PER + 10;
    int found;
    code = mmap(NULL, 64 * 1024, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(code, MAP_FAILED);
    /* Registered before publishing: published when it is turned on. */
    for (i = 0; i < 10; i++)
        ck_assert_int_eq(jitunwind_jit_register(code + 16 * i, 16, JITUNWIND_KIND_JIT,
                                                JITUNWIND_RULE_FP_PRESERVING, "early", 0, &ids[i]), 0);
    ck_assert_int_eq(walk(&symbols, &found, NULL), 0);
    ck_assert_int_eq(jitunwind_jit_set_gdb_jit(1), 0);
    ck_assert_int_eq(walk(&symbols, &found, NULL), 1);
    ck_assert_uint_eq(symbols, 10);
    for (i = 10; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "jit:%zu", i);
        ck_assert_int_eq(jitunwind_jit_register(code + 16 * i, 16, JITUNWIND_KIND_JIT,
                                                JITUNWIND_RULE_FP_PRESERVING, name, 0, &ids[i]), 0);
        ck_assert_uint_eq(__jit_debug_descriptor.action_flag, 0); /* reset after the call */
        ck_assert_ptr_eq(__jit_debug_descriptor.relevant_entry,
                         __jit_debug_descriptor.first_entry); /* the last one registered */
    }
    ck_assert_int_eq(walk(&symbols, &found, "jit:300 [jit fp-preserving]"), 3);
    ck_assert_uint_eq(symbols, n);
    ck_assert(found);
    /* A debugger's reader of the interface passes over these images (their
     * ranges are in the jitunwind descriptor): none added, none skipped. */
    {
        struct jitunwind_memory self = {sizeof(struct jitunwind_memory), read_self, NULL};
        jitunwind_registry *reg;
        size_t got = 1, skipped = 1;
        ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
        ck_assert_int_eq(jitunwind_registry_load_gdb_jit(reg, &self,
                                                         (uint64_t)(uintptr_t)&__jit_debug_descriptor,
                                                         jitunwind_host_arch(), &got, &skipped), 0);
        ck_assert_uint_eq(got, 0);
        ck_assert_uint_eq(skipped, 0);
        jitunwind_registry_free(reg);
    }
    jitunwind_jit_gdb_jit_status(&st);
    ck_assert_uint_eq(st.objects, 3);
    ck_assert_uint_eq(st.ranges, n);
    ck_assert_uint_eq(st.failures, 0);
    ck_assert_uint_eq(st.foreign, 0);
    /* Unregistering rebuilds that object alone, without the range. */
    ck_assert_int_eq(jitunwind_jit_unregister(ids[300]), 0);
    ck_assert_int_eq(walk(&symbols, &found, "jit:300 [jit fp-preserving]"), 3);
    ck_assert_uint_eq(symbols, n - 1);
    ck_assert(!found);
    /* Emptying the first object withdraws it. */
    for (i = 0; i < PER; i++)
        ck_assert_int_eq(jitunwind_jit_unregister(ids[i]), 0);
    ck_assert_int_eq(walk(&symbols, &found, NULL), 2);
    ck_assert_uint_eq(symbols, n - 1 - PER);
    /* Off: nothing left in the list; on again: everything back. */
    ck_assert_int_eq(jitunwind_jit_set_gdb_jit(0), 0);
    ck_assert_int_eq(walk(&symbols, &found, NULL), 0);
    ck_assert_int_eq(jitunwind_jit_set_gdb_jit(1), 0);
    ck_assert_int_eq(walk(&symbols, &found, NULL), 2);
    ck_assert_uint_eq(symbols, n - 1 - PER);
    /* Reset: the list empties. */
    jitunwind_jit_reset();
    ck_assert_int_eq(walk(&symbols, &found, NULL), 0);
    jitunwind_jit_gdb_jit_status(&st);
    ck_assert_uint_eq(st.objects, 0);
    ck_assert_uint_eq(st.ranges, 0);
    ck_assert_int_eq(jitunwind_jit_set_gdb_jit(0), 0);
}
END_TEST

START_TEST(batched_mode_announces_full_images_and_flushes)
{
    jitunwind_jit_id ids[PER + 5];
    size_t i, symbols;
    int found;
    code = mmap(NULL, 64 * 1024, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(code, MAP_FAILED);
    ck_assert_int_eq(jitunwind_jit_set_gdb_jit(3), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_jit_set_gdb_jit(JITUNWIND_GDB_JIT_SHARE_FOREIGN), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_jit_set_gdb_jit(JITUNWIND_GDB_JIT_BATCHED), 0);
    /* The list is chosen when publishing starts. */
    ck_assert_int_eq(jitunwind_jit_set_gdb_jit(JITUNWIND_GDB_JIT_BATCHED |
                                               JITUNWIND_GDB_JIT_SHARE_FOREIGN), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_jit_set_gdb_jit(JITUNWIND_GDB_JIT_BATCHED), 0);
    for (i = 0; i < PER + 5; i++) {
        ck_assert_int_eq(jitunwind_jit_register(code + 16 * i, 16, JITUNWIND_KIND_JIT,
                                                JITUNWIND_RULE_FP_PRESERVING, "b", 0, &ids[i]), 0);
        /* nothing until the first image is full, then that image alone */
        ck_assert_int_eq(walk(&symbols, &found, NULL), i + 1 >= PER);
        ck_assert_uint_eq(symbols, i + 1 >= PER ? PER : 0);
    }
    jitunwind_jit_gdb_jit_flush();
    ck_assert_int_eq(walk(&symbols, &found, NULL), 2);
    ck_assert_uint_eq(symbols, PER + 5);
    /* Unregistering from a linked image rebuilds it at once. */
    ck_assert_int_eq(jitunwind_jit_unregister(ids[0]), 0);
    ck_assert_int_eq(walk(&symbols, &found, NULL), 2);
    ck_assert_uint_eq(symbols, PER + 4);
    ck_assert_int_eq(jitunwind_jit_set_gdb_jit(JITUNWIND_GDB_JIT_OFF), 0);
    jitunwind_jit_reset();
}
END_TEST

int main(void)
{
    return ju_run_tests("gdb_jit_publish", JU_TESTS(batches_republishes_and_withdraws,
                                                    batched_mode_announces_full_images_and_flushes));
}
