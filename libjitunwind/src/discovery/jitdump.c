/* Loading perf's jitdump files (jit-PID.dump), which CPython writes instead
 * of a perf map under `-X perf_jit`: a 40-byte header, then records
 * {u32 id, u32 total_size, u64 timestamp, body}; a JIT_CODE_LOAD record (id
 * 0) gives {u32 pid, u32 tid, u64 vma, u64 code_addr, u64 code_size, u64
 * code_index, NUL-terminated name, code}. Records of other kinds (unwinding
 * and debug info, moves, close) are stepped over. As with perf maps, each
 * entry's layout is read from the code in the target, never assumed, and a
 * later record wins over the ranges of the same origin it overlaps.
 * Bounded: record sizes and count are capped; a record that does not parse
 * ends the file (its size can no longer be trusted to find the next). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arch_facts.h"
#include "base/host_files.h"
#include "discovery/perf_files.h"
#include "internal.h"
#include "ranges/registry_loaders.h"

#define JITDUMP_MAGIC 0x4a695444u /* "JiTD" as this host writes it */
#define HEADER_MIN 40u
#define HEADER_MAX 4096u
#define RECORD_MAX (1u << 20)   /* a larger record is not one a trampoline writes */
#define MAX_RECORDS (4u << 20)
#define LOAD_HEAD 56u           /* record header and JIT_CODE_LOAD's fixed fields */
#define CODE_PEEK 32u
#define MAX_SUPERSEDED 16u

/* One JIT_CODE_LOAD body (`rec`, `size` bytes with its header) as a range:
 * 1 added, 0 skipped. */
static int load_record(jitunwind_registry *reg, int arch, const struct jitunwind_memory *mem,
                       const uint8_t *rec, size_t size)
{
    struct jitunwind_range r = {0};
    uint8_t code[CODE_PEEK];
    uint64_t start = ju_load_u64(rec + 32), len = ju_load_u64(rec + 40); /* code_addr, code_size */
    const char *name = (const char *)rec + LOAD_HEAD;
    size_t peek;
    int rule;
    /* The name ends before the copy of the code that closes the record. */
    if (size <= LOAD_HEAD || len == 0 || len >= size - LOAD_HEAD || start + len < start ||
        !memchr(name, '\0', size - LOAD_HEAD - (size_t)len))
        return 0;
    peek = len < CODE_PEEK ? (size_t)len : CODE_PEEK;
    if (ju_read(mem, start, code, peek) < 0 ||
        (rule = jitunwind_classify_trampoline(arch, code, peek)) < 0)
        return 0;
    r.start = start;
    r.end = start + len;
    r.kind = JITUNWIND_KIND_TRAMPOLINE;
    r.rule = (uint32_t)rule;
    r.origin = JITUNWIND_ORIGIN_PERF_MAP;
    r.name = name;
    return ju_registry_supersede(reg, &r, JITUNWIND_ORIGIN_PERF_MAP, MAX_SUPERSEDED) == 0;
}

JITUNWIND_API int jitunwind_registry_load_jitdump(jitunwind_registry *reg, const char *path,
                                                  int arch, const struct jitunwind_memory *mem,
                                                  size_t *added, size_t *skipped)
{
    uint8_t head[HEADER_MIN], *rec = NULL;
    size_t n_added = 0, n_skipped = 0, records = 0;
    int fd, rc = 0;
    FILE *f;
    if (!reg || !path || !ju_memory_valid(mem))
        return JITUNWIND_EINVAL;
    if (!ju_arch_facts(arch))
        return ju_fail(ju_registry_error(reg), JITUNWIND_EINVAL, 0, "unknown architecture %d", arch);
    /* Any local user can create /tmp/jit-PID.dump before the process does. */
    rc = ju_open_host_file(path, JU_OPEN_SHARED_PLACE, ju_perf_file_owner(path), ju_registry_error(reg),
                           &fd);
    if (rc < 0)
        return rc;
    if (!(f = fdopen(fd, "rb"))) {
        close(fd);
        return ju_fail(ju_registry_error(reg), JITUNWIND_ENOMEM, 0, "cannot read jitdump %s", path);
    }
    if (fread(head, 1, sizeof head, f) != sizeof head || ju_load_u32(head) != JITDUMP_MAGIC ||
        ju_load_u32(head + 4) != 1 || ju_load_u32(head + 8) < HEADER_MIN ||
        ju_load_u32(head + 8) > HEADER_MAX ||
        fseek(f, (long)ju_load_u32(head + 8), SEEK_SET) != 0) {
        rc = ju_fail(ju_registry_error(reg), JITUNWIND_EUNSUPPORTED, 0,
                     "%s is not a version 1 jitdump file of this byte order", path);
        goto out;
    }
    if (!(rec = malloc(RECORD_MAX))) {
        rc = JITUNWIND_ENOMEM;
        goto out;
    }
    for (;;) {
        uint32_t id, size;
        if (fread(rec, 1, 16, f) != 16)
            break; /* the end, or a record still being written */
        id = ju_load_u32(rec);
        size = ju_load_u32(rec + 4);
        if (size < 16 || size > RECORD_MAX || ++records > MAX_RECORDS) {
            n_skipped++;
            break;
        }
        if (id != 0) {
            if (fseek(f, (long)(size - 16), SEEK_CUR) != 0)
                break;
            continue;
        }
        if (fread(rec + 16, 1, size - 16, f) != size - 16)
            break;
        if (load_record(reg, arch, mem, rec, size))
            n_added++;
        else
            n_skipped++;
    }
    if (ferror(f))
        rc = ju_fail(ju_registry_error(reg), JITUNWIND_EIO, 0, "reading %s failed", path);
out:
    free(rec);
    fclose(f);
    if (added)
        *added = n_added;
    if (skipped)
        *skipped = n_skipped;
    return rc;
}
