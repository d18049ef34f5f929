/* Collapsed stacks (flamegraph.pl, speedscope, inferno): one line per
 * distinct stack, frames root first joined by ';', then the count. */
#include <string.h>

#include "profile.h"

static void put_label(FILE *out, const struct profile_frame *f)
{
    char label[8192], *c;
    profile_frame_label(f, label, sizeof label); /* escaped: no line breaks or controls */
    for (c = label; *c; c++)
        if (*c == ';')
            *c = ':'; /* the format's frame separator cannot appear in a frame */
    fputs(label, out);
}

int output_collapsed(FILE *out, const struct profile *p)
{
    size_t i;
    uint32_t d;
    for (i = 0; i < p->n_stacks; i++) {
        const struct profile_stack *s = &p->stacks[i];
        for (d = 0; d < s->depth; d++) {
            if (d)
                fputc(';', out);
            put_label(out, &p->frames[s->frames[d]]);
        }
        fprintf(out, " %llu\n", (unsigned long long)s->count);
    }
    return ferror(out) ? -1 : 0;
}
