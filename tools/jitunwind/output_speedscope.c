/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile whose samples are the distinct stacks, weighted by
 * their counts, in seconds of samples at the rate asked for. */
#include "cli.h"
#include "profile.h"

int output_speedscope(FILE *out, const struct profile *p)
{
    size_t i;
    uint32_t d;
    double weight = p->hz > 0 ? 1.0 / p->hz : 0.01, total = 0;
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
    fprintf(out, "]},\n \"profiles\": [{\"type\": \"sampled\", \"name\": \"all threads\", "
                 "\"unit\": \"seconds\", \"startValue\": 0,\n  \"samples\": [");
    for (i = 0; i < p->n_stacks; i++) {
        fprintf(out, "%s[", i ? ", " : "");
        for (d = 0; d < p->stacks[i].depth; d++)
            fprintf(out, "%s%u", d ? "," : "", p->stacks[i].frames[d]);
        fprintf(out, "]");
    }
    fprintf(out, "],\n  \"weights\": [");
    for (i = 0; i < p->n_stacks; i++) {
        double w = (double)p->stacks[i].count * weight;
        total += w;
        fprintf(out, "%s%.6g", i ? ", " : "", w);
    }
    fprintf(out, "],\n  \"endValue\": %.6g}]}\n", total);
    return ferror(out) ? -1 : 0;
}
