/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per thread, its samples in the order they were
 * taken (a run of one stack is one sample weighted by its length), in
 * seconds of samples at the rate asked for. A profile whose stacks were
 * given no thread is one merged profile of the distinct stacks. */
#include <stdlib.h>

#include "cli.h"
#include "profile.h"

static void write_stack(FILE *out, const struct profile_stack *s)
{
    uint32_t d;
    fputc('[', out);
    for (d = 0; d < s->depth; d++)
        fprintf(out, "%s%u", d ? "," : "", s->frames[d]);
    fputc(']', out);
}

/* One sampled profile: `n` runs, each a stack weighted by its count. */
static void write_sampled(FILE *out, const struct profile *p, const char *name,
                          const struct profile_run *runs, size_t n, double weight)
{
    size_t i;
    double total = 0;
    fprintf(out, "  {\"type\": \"sampled\", \"name\": ");
    cli_json_string(out, name);
    fprintf(out, ", \"unit\": \"seconds\", \"startValue\": 0,\n   \"samples\": [");
    for (i = 0; i < n; i++) {
        if (i)
            fputs(", ", out);
        write_stack(out, &p->stacks[runs[i].stack]);
    }
    fprintf(out, "],\n   \"weights\": [");
    for (i = 0; i < n; i++) {
        double w = (double)runs[i].count * weight;
        total += w;
        fprintf(out, "%s%.6g", i ? ", " : "", w);
    }
    fprintf(out, "],\n   \"endValue\": %.6g}", total);
}

static void write_thread_profile(FILE *out, const struct profile *p,
                                 const struct profile_thread *th, double weight)
{
    char name[128];
    if (th->name[0])
        snprintf(name, sizeof name, "Thread %d \"%s\"", th->tid, th->name);
    else
        snprintf(name, sizeof name, "Thread %d", th->tid);
    write_sampled(out, p, name, th->runs, th->n_runs, weight);
}

/* The distinct stacks of all threads, weighted by their counts. */
static int write_merged(FILE *out, const struct profile *p, double weight)
{
    struct profile_run *runs = calloc(p->n_stacks + 1, sizeof *runs);
    size_t i;
    if (!runs)
        return -1;
    for (i = 0; i < p->n_stacks; i++) {
        runs[i].stack = (uint32_t)i;
        runs[i].count = p->stacks[i].count > UINT32_MAX ? UINT32_MAX
                                                        : (uint32_t)p->stacks[i].count;
    }
    write_sampled(out, p, "all threads", runs, p->n_stacks, weight);
    free(runs);
    return 0;
}

int output_speedscope(FILE *out, const struct profile *p)
{
    size_t i, shown = 0;
    double weight = p->hz > 0 ? 1.0 / p->hz : 0.01;
    fprintf(out, "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
                 " \"exporter\": ");
    cli_json_string(out, "jitunwind");
    fprintf(out, ", \"name\": \"jitunwind record\", \"activeProfileIndex\": 0,\n"
                 " \"shared\": {\"frames\": [");
    for (i = 0; i < p->n_frames; i++) {
        const struct profile_frame *f = &p->frames[i];
        fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
        cli_json_string(out, f->name);
        if (f->file[0]) {
            fprintf(out, ", \"file\": ");
            cli_json_string(out, f->file);
        }
        if (f->kind == PROFILE_PYTHON && f->line > 0)
            fprintf(out, ", \"line\": %d", f->line);
        fprintf(out, "}");
    }
    fprintf(out, "]},\n \"profiles\": [\n");
    for (i = 0; i < p->n_threads; i++) {
        if (!p->threads[i].n_runs)
            continue;
        if (shown++)
            fputs(",\n", out);
        write_thread_profile(out, p, &p->threads[i], weight);
    }
    if (!shown && write_merged(out, p, weight) < 0)
        return -1;
    fprintf(out, "]}\n");
    if (p->runs_dropped)
        fprintf(stderr, "jitunwind: speedscope: %llu samples past the first %u runs are in "
                        "no thread's time order (collapsed and pprof have them all)\n",
                (unsigned long long)p->runs_dropped, PROFILE_MAX_RUNS);
    return ferror(out) ? -1 : 0;
}
