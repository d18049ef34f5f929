/* pprof: a gzipped perftools.profiles.Profile (profile.proto), encoded by
 * protobuf-c. One Location and one Function per interned frame (Python
 * frames: function, file and line; JIT, trampoline and native frames: their
 * names); samples leaf first, valued in samples and CPU nanoseconds, one
 * per thread and stack, labelled with the thread's id (thread_id) and name
 * (thread_name, as speedscope's profiles are named; escaped as a terminal
 * may see it), which `go tool pprof -tags` lists and -tagfocus selects. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cli.h"
#include "profile.h"
#include "profile.pb-c.h"

struct strings {
    char **items;
    size_t n;
};

/* String tables are small (a few per frame): a linear search is fine up
 * to the frame counts a recording holds; index 0 must be "". */
static int64_t intern(struct strings *s, const char *text)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        if (strcmp(s->items[i], text) == 0)
            return (int64_t)i;
    s->items[s->n] = (char *)text;
    return (int64_t)s->n++;
}

/* pprof demangles a function whose system name equals its name, and treats
 * a name holding '<', '(' or '[' as demangled C++ whose template arguments
 * and parameters it strips ("<module>" became "<unknown>", a JIT label lost
 * its "(file:line)"). Only a native symbol is a system name; every label this
 * tool makes (Python functions, JIT and trampoline ranges, "?? (module)")
 * gets the empty system name, which pprof leaves as it is. */
static int is_symbol(const struct profile_frame *f)
{
    return f->kind == PROFILE_NATIVE && !strchr(f->name, ' ') && f->name[0] != '[';
}

static const char *kind_file(const struct profile_frame *f)
{
    switch (f->kind) {
    case PROFILE_JIT: return "[jit]";
    case PROFILE_TRAMPOLINE: return "[trampoline]";
    default: return f->file;
    }
}

/* Label a sample with its thread: `labels` has room for two. */
static void thread_labels(Perftools__Profiles__Sample *sample, Perftools__Profiles__Label *labels,
                          Perftools__Profiles__Label **label_ptrs, const struct profile_thread *th,
                          int64_t id_key, int64_t name_key, int64_t name)
{
    perftools__profiles__label__init(&labels[0]);
    labels[0].key = id_key;
    labels[0].num = th->tid;
    label_ptrs[0] = &labels[0];
    sample->n_label = 1;
    if (name) {
        perftools__profiles__label__init(&labels[1]);
        labels[1].key = name_key;
        labels[1].str = name;
        label_ptrs[1] = &labels[1];
        sample->n_label = 2;
    }
    sample->label = label_ptrs;
}

int output_pprof(FILE *out, const struct profile *p)
{
    Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
    Perftools__Profiles__ValueType types[2], period = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
    Perftools__Profiles__ValueType *type_ptrs[2] = {&types[0], &types[1]};
    size_t nf = p->n_frames, nt = p->n_threads, ns = 0, i;
    struct profile_part *parts = NULL;
    int parted = profile_by_thread(p, &parts, &ns);
    struct strings st = {calloc(4 * nf + nt + 8, sizeof(char *)), 0};
    char *names = calloc(nt + 1, 4 * sizeof p->threads[0].name);
    int64_t *name_ids = calloc(nt + 1, sizeof *name_ids), id_key, name_key;
    Perftools__Profiles__Label *labels = calloc(2 * ns + 1, sizeof *labels);
    Perftools__Profiles__Label **label_ptrs = calloc(2 * ns + 1, sizeof *label_ptrs);
    Perftools__Profiles__Function *funcs = calloc(nf + 1, sizeof *funcs);
    Perftools__Profiles__Function **func_ptrs = calloc(nf + 1, sizeof *func_ptrs);
    Perftools__Profiles__Location *locs = calloc(nf + 1, sizeof *locs);
    Perftools__Profiles__Location **loc_ptrs = calloc(nf + 1, sizeof *loc_ptrs);
    Perftools__Profiles__Line *lines = calloc(nf + 1, sizeof *lines);
    Perftools__Profiles__Line **line_ptrs = calloc(nf + 1, sizeof *line_ptrs);
    Perftools__Profiles__Sample *samples = calloc(ns + 1, sizeof *samples);
    Perftools__Profiles__Sample **sample_ptrs = calloc(ns + 1, sizeof *sample_ptrs);
    uint64_t *loc_ids = NULL;
    int64_t *values = calloc(2 * ns + 1, sizeof *values);
    int64_t period_ns = p->hz > 0 ? (int64_t)(1e9 / p->hz) : 10000000;
    size_t total_depth = 0, at = 0, size;
    uint8_t *buf = NULL;
    gzFile gz = NULL;
    int rc = -1;
    if (parted < 0)
        goto done;
    for (i = 0; i < ns; i++)
        total_depth += p->stacks[parts[i].stack].depth;
    loc_ids = calloc(total_depth + 1, sizeof *loc_ids);
    if (!st.items || !funcs || !func_ptrs || !locs || !loc_ptrs || !lines || !line_ptrs ||
        !samples || !sample_ptrs || !values || !loc_ids || !names || !name_ids || !labels ||
        !label_ptrs)
        goto done;
    intern(&st, "");
    for (i = 0; i < 2; i++)
        perftools__profiles__value_type__init(&types[i]);
    types[0].type = intern(&st, "samples");
    types[0].unit = intern(&st, "count");
    types[1].type = intern(&st, "cpu");
    types[1].unit = intern(&st, "nanoseconds");
    period.type = types[1].type;
    period.unit = types[1].unit;
    id_key = intern(&st, "thread_id");
    name_key = intern(&st, "thread_name");
    for (i = 0; i < nt; i++) {
        char *name = names + i * 4 * sizeof p->threads[0].name;
        cli_shown(p->threads[i].name, name, 4 * sizeof p->threads[0].name);
        name_ids[i] = name[0] ? intern(&st, name) : 0;
    }
    for (i = 0; i < nf; i++) {
        const struct profile_frame *f = &p->frames[i];
        perftools__profiles__function__init(&funcs[i]);
        funcs[i].id = i + 1;
        funcs[i].name = intern(&st, f->name);
        funcs[i].system_name = is_symbol(f) ? funcs[i].name : 0;
        funcs[i].filename = intern(&st, kind_file(f));
        func_ptrs[i] = &funcs[i];
        perftools__profiles__line__init(&lines[i]);
        lines[i].function_id = i + 1;
        lines[i].line = f->kind == PROFILE_PYTHON ? f->line : 0;
        line_ptrs[i] = &lines[i];
        perftools__profiles__location__init(&locs[i]);
        locs[i].id = i + 1;
        locs[i].n_line = 1;
        locs[i].line = &line_ptrs[i];
        loc_ptrs[i] = &locs[i];
    }
    for (i = 0; i < ns; i++) {
        const struct profile_stack *s = &p->stacks[parts[i].stack];
        uint32_t d;
        perftools__profiles__sample__init(&samples[i]);
        samples[i].location_id = &loc_ids[at];
        samples[i].n_location_id = s->depth;
        for (d = 0; d < s->depth; d++) /* pprof wants the leaf first */
            loc_ids[at++] = s->frames[s->depth - 1 - d] + 1;
        if (parts[i].thread < nt)
            thread_labels(&samples[i], &labels[2 * i], &label_ptrs[2 * i],
                          &p->threads[parts[i].thread], id_key, name_key,
                          name_ids[parts[i].thread]);
        values[2 * i] = (int64_t)parts[i].count;
        values[2 * i + 1] = (int64_t)parts[i].count * period_ns;
        samples[i].value = &values[2 * i];
        samples[i].n_value = 2;
        sample_ptrs[i] = &samples[i];
    }
    prof.n_sample_type = 2;
    prof.sample_type = type_ptrs;
    prof.n_sample = ns;
    prof.sample = sample_ptrs;
    prof.n_location = nf;
    prof.location = loc_ptrs;
    prof.n_function = nf;
    prof.function = func_ptrs;
    prof.n_string_table = st.n;
    prof.string_table = st.items;
    prof.time_nanos = (int64_t)time(NULL) * 1000000000;
    prof.duration_nanos = (int64_t)(p->seconds * 1e9);
    prof.period_type = &period;
    prof.period = period_ns;
    size = perftools__profiles__profile__get_packed_size(&prof);
    if (!(buf = malloc(size ? size : 1)))
        goto done;
    perftools__profiles__profile__pack(&prof, buf);
    fflush(out);
    if (!(gz = gzdopen(dup(fileno(out)), "wb")))
        goto done;
    if (size == 0 || gzwrite(gz, buf, (unsigned)size) == (int)size)
        rc = 0;
done:
    if (gz && gzclose(gz) != Z_OK)
        rc = -1;
    free(buf);
    free(st.items);
    free(funcs);
    free(func_ptrs);
    free(locs);
    free(loc_ptrs);
    free(lines);
    free(line_ptrs);
    free(samples);
    free(sample_ptrs);
    free(values);
    free(loc_ids);
    free(parts);
    free(names);
    free(name_ids);
    free(labels);
    free(label_ptrs);
    return rc;
}
