/* A flame graph as one self-contained SVG file (no outside script, font or
 * style): the merged stacks, root at the bottom, siblings in name order,
 * each frame as wide as its share of the samples. A frame's title gives
 * its samples and share; clicking a frame zooms to it, clicking the title
 * line resets. Frames narrower than FLAME_MIN_WIDTH pixels are left out (as
 * flamegraph.pl does), and the title line says how many were. Target text
 * is escaped for the terminal's sake (cli_shown) and then for XML. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile.h"

#define FLAME_WIDTH 1200.0
#define FLAME_PAD 10.0
#define FLAME_ROW 16.0
#define FLAME_TOP 40.0      /* title and reset line */
#define FLAME_MIN_WIDTH 0.1 /* pixels */
#define FLAME_CHAR 7.0      /* pixels per character at the font size used */

struct flame {
    FILE *out;
    const struct profile *p;
    double total;          /* samples */
    uint32_t max_depth;
    uint64_t left_out;     /* frames narrower than FLAME_MIN_WIDTH */
};

static const struct profile *sort_profile; /* qsort has no context argument */

static int frame_cmp(const struct profile_frame *a, const struct profile_frame *b)
{
    int c = strcmp(a->name, b->name);
    if (c == 0)
        c = strcmp(a->file, b->file);
    if (c == 0)
        c = (a->line > b->line) - (a->line < b->line);
    return c;
}

static int stack_cmp(const void *x, const void *y)
{
    const struct profile_stack *a = &sort_profile->stacks[*(const size_t *)x];
    const struct profile_stack *b = &sort_profile->stacks[*(const size_t *)y];
    uint32_t d, n = a->depth < b->depth ? a->depth : b->depth;
    for (d = 0; d < n; d++) {
        int c = a->frames[d] == b->frames[d]
                    ? 0
                    : frame_cmp(&sort_profile->frames[a->frames[d]],
                                &sort_profile->frames[b->frames[d]]);
        if (c)
            return c;
    }
    return (a->depth > b->depth) - (a->depth < b->depth);
}

static void xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* Hues by kind: Python warm yellow, native red-orange, JIT code aqua,
 * trampolines violet, thread roots grey; the name varies the shade so
 * neighbours differ. */
static void frame_colour(const struct profile_frame *f, char *buf, size_t len)
{
    unsigned h = 2166136261u;
    const char *s;
    for (s = f->name; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    switch (f->kind) {
    case PROFILE_PYTHON:
        snprintf(buf, len, "rgb(%u,%u,%u)", 230 + h % 25, 180 + (h >> 8) % 60, 50 + (h >> 16) % 40);
        break;
    case PROFILE_JIT:
        snprintf(buf, len, "rgb(%u,%u,%u)", 60 + h % 40, 190 + (h >> 8) % 50, 200 + (h >> 16) % 40);
        break;
    case PROFILE_TRAMPOLINE:
        snprintf(buf, len, "rgb(%u,%u,%u)", 170 + h % 40, 120 + (h >> 8) % 40, 220 + (h >> 16) % 30);
        break;
    case PROFILE_THREAD:
        snprintf(buf, len, "rgb(%u,%u,%u)", 180 + h % 30, 180 + h % 30, 190 + h % 30);
        break;
    default:
        snprintf(buf, len, "rgb(%u,%u,%u)", 220 + h % 30, 90 + (h >> 8) % 80, 50 + (h >> 16) % 40);
    }
}

static void emit(struct flame *fl, uint32_t frame, uint32_t depth, double start, double end)
{
    const struct profile_frame *f = &fl->p->frames[frame];
    double w = (end - start) / fl->total * (FLAME_WIDTH - 2 * FLAME_PAD);
    double x = FLAME_PAD + start / fl->total * (FLAME_WIDTH - 2 * FLAME_PAD);
    double y = FLAME_TOP + (fl->max_depth - depth) * FLAME_ROW;
    char label[4 * JITUNWIND_NAME_MAX + 4 * JITUNWIND_PY_FILENAME_MAX + 32], colour[32];
    size_t fit;
    if (w < FLAME_MIN_WIDTH) {
        fl->left_out++;
        return;
    }
    profile_frame_label(f, label, sizeof label);
    frame_colour(f, colour, sizeof colour);
    fprintf(fl->out, "<g class=\"f\" data-x=\"%.9g\" data-w=\"%.9g\" data-d=\"%u\" data-l=\"",
            start / fl->total, (end - start) / fl->total, depth);
    xml_text(fl->out, label);
    fprintf(fl->out, "\"><title>");
    xml_text(fl->out, label);
    fprintf(fl->out, " (%.0f samples, %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
                     "height=\"%.1f\" fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
            end - start, 100.0 * (end - start) / fl->total, x, y, w > 0.5 ? w - 0.5 : w,
            FLAME_ROW - 1, colour, x + 3, y + FLAME_ROW - 4.5);
    fit = w > 6 ? (size_t)((w - 6) / FLAME_CHAR) : 0;
    if (fit >= 3 && strlen(label) > fit)
        memcpy(label + fit - 2, "..", 3);
    if (fit >= 3)
        xml_text(fl->out, label);
    fprintf(fl->out, "</text></g>\n");
}

static const char flame_script[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "var W=%g,P=%g,C=%g;\n"
    "function fit(l,w){var n=Math.floor((w-6)/C);if(n<3)return '';"
    "return l.length>n?l.slice(0,n-2)+'..':l;}\n"
    "function zoom(x,w,d){document.querySelectorAll('g.f').forEach(function(e){\n"
    " var ex=+e.dataset.x,ew=+e.dataset.w,ed=+e.dataset.d,r=e.querySelector('rect'),"
    "t=e.querySelector('text'),nx,nw;\n"
    " if(ed<d){if(ex>x+1e-12||ex+ew<x+w-1e-12){e.style.display='none';return;}nx=0;nw=1;}\n"
    " else{if(ex<x-1e-12||ex+ew>x+w+1e-12){e.style.display='none';return;}"
    "nx=(ex-x)/w;nw=ew/w;}\n"
    " e.style.display='';r.setAttribute('x',P+nx*(W-2*P));"
    "r.setAttribute('width',Math.max(0,nw*(W-2*P)-0.5));\n"
    " t.setAttribute('x',P+nx*(W-2*P)+3);t.textContent=fit(e.dataset.l,nw*(W-2*P));});}\n"
    "document.addEventListener('click',function(ev){var g=ev.target.closest('g.f');\n"
    " if(g)zoom(+g.dataset.x,+g.dataset.w,+g.dataset.d);"
    "else if(ev.target.id==='reset')zoom(0,1,0);});\n"
    "]]></script>\n";

int output_flamegraph(FILE *out, const struct profile *p)
{
    struct flame fl = {out, p, 0, 0, 0};
    size_t *order = calloc(p->n_stacks + 1, sizeof *order), i;
    uint32_t *open = NULL, prev_depth = 0, d;
    double *opened = NULL, x = 0, height;
    const struct profile_stack *prev = NULL;
    for (i = 0; i < p->n_stacks; i++) {
        order[i] = i;
        fl.total += (double)p->stacks[i].count;
        if (p->stacks[i].depth > fl.max_depth)
            fl.max_depth = p->stacks[i].depth;
    }
    if (!order || !(open = calloc(fl.max_depth + 1, sizeof *open)) ||
        !(opened = calloc(fl.max_depth + 1, sizeof *opened))) {
        free(order);
        free(open);
        return -1;
    }
    sort_profile = p;
    qsort(order, p->n_stacks, sizeof *order, stack_cmp);
    height = FLAME_TOP + (fl.max_depth + 1) * FLAME_ROW + FLAME_PAD;
    fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                 "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                 "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
                 "<style>text{font-family:monospace;font-size:11px;fill:#000}"
                 "g.f:hover rect{stroke:#000;stroke-width:0.5}g.f{cursor:pointer}"
                 "#reset{cursor:pointer;fill:#336}</style>\n"
                 "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n",
            FLAME_WIDTH, height, FLAME_WIDTH, height);
    fprintf(out, flame_script, FLAME_WIDTH, FLAME_PAD, FLAME_CHAR);
    fprintf(out, "<text x=\"%.0f\" y=\"18\" style=\"font-size:14px\">jitunwind record: %.0f "
                 "samples, %zu stacks</text>\n",
            FLAME_PAD, fl.total, p->n_stacks);
    /* Walk the sorted stacks once: a frame is drawn when the next stack no
     * longer shares it, from where it opened to the samples seen so far. */
    for (i = 0; i <= p->n_stacks; i++) {
        const struct profile_stack *s = i < p->n_stacks ? &p->stacks[order[i]] : NULL;
        uint32_t depth = s ? s->depth : 0, common = 0;
        while (prev && s && common < prev_depth && common < depth &&
               prev->frames[common] == s->frames[common])
            common++;
        for (d = prev_depth; d-- > common;)
            emit(&fl, open[d], d, opened[d], x);
        for (d = common; d < depth; d++) {
            open[d] = s->frames[d];
            opened[d] = x;
        }
        if (s)
            x += (double)s->count;
        prev = s;
        prev_depth = depth;
    }
    fprintf(out, "<text id=\"reset\" x=\"%.0f\" y=\"34\">reset zoom</text>\n", FLAME_PAD);
    if (fl.left_out)
        fprintf(out, "<text x=\"%.0f\" y=\"34\">%llu frames narrower than %.1f px not drawn"
                     "</text>\n",
                FLAME_PAD + 100, (unsigned long long)fl.left_out, FLAME_MIN_WIDTH);
    fprintf(out, "</svg>\n");
    free(order);
    free(open);
    free(opened);
    return ferror(out) ? -1 : 0;
}
