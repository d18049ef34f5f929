/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per thread, its samples in the order they were
 * taken (a run of one stack is one sample weighted by its length), in
 * seconds of samples at the rate asked for. A profile whose stacks were
 * given no thread is one merged profile of the distinct stacks. */
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

static void write_thread(FILE *out, const struct profile *p, const struct profile_thread *th,
                         double weight)
{
    char name[128];
    size_t i;
    double total = 0;
    if (th->name[0])
        snprintf(name, sizeof name, "Thread %d \"%s\"", th->tid, th->name);
    else
        snprintf(name, sizeof name, "Thread %d", th->tid);
    fprintf(out, "  {\"type\": \"sampled\", \"name\": ");
    cli_json_string(out, name);
    fprintf(out, ", \"unit\": \"seconds\", \"startValue\": 0,\n   \"samples\": [");
    for (i = 0; i < th->n_runs; i++) {
        if (i)
            fputs(", ", out);
        write_stack(out, &p->stacks[th->runs[i].stack]);
    }
    fprintf(out, "],\n   \"weights\": [");
    for (i = 0; i < th->n_runs; i++) {
        double w = (double)th->runs[i].count * weight;
        total += w;
        fprintf(out, "%s%.6g", i ? ", " : "", w);
    }
    fprintf(out, "],\n   \"endValue\": %.6g}", total);
}

static void write_merged(FILE *out, const struct profile *p, double weight)
{
    size_t i;
    double total = 0;
    fprintf(out, "  {\"type\": \"sampled\", \"name\": \"all threads\", \"unit\": \"seconds\", "
                 "\"startValue\": 0,\n   \"samples\": [");
    for (i = 0; i < p->n_stacks; i++) {
        if (i)
            fputs(", ", out);
        write_stack(out, &p->stacks[i]);
    }
    fprintf(out, "],\n   \"weights\": [");
    for (i = 0; i < p->n_stacks; i++) {
        double w = (double)p->stacks[i].count * weight;
        total += w;
        fprintf(out, "%s%.6g", i ? ", " : "", w);
    }
    fprintf(out, "],\n   \"endValue\": %.6g}", total);
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
        write_thread(out, p, &p->threads[i], weight);
    }
    if (!shown)
        write_merged(out, p, weight);
    fprintf(out, "]}\n");
    if (p->runs_dropped)
        fprintf(stderr, "jitunwind: speedscope: %llu samples past the first %u runs are in "
                        "no thread's time order (collapsed and pprof have them all)\n",
                (unsigned long long)p->runs_dropped, PROFILE_MAX_RUNS);
    return ferror(out) ? -1 : 0;
}
