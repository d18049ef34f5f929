/* `jitunwind stack` as text: one line per native frame (how it was found
 * in parentheses), the Python frames each eval loop runs under it. The
 * line formats are the debugger plugins' mixed-bt. */
#include <string.h>

#include "cli.h"

void cli_text_header(FILE *out, const struct cli_target *t)
{
    char shown[4 * CLI_NOTE_MAX + 4 * sizeof t->loc.module];
    int i;
    if (t->live)
        fprintf(out, "Process %d: ", t->pid);
    else
        fprintf(out, "Core %s: ", cli_shown(t->core_path, shown, sizeof shown));
    fprintf(out, "CPython %u.%u.%u (%s)\n", t->loc.version_hex >> 24,
            (t->loc.version_hex >> 16) & 0xff, (t->loc.version_hex >> 8) & 0xff,
            cli_shown(t->loc.module, shown, sizeof shown));
    for (i = 0; i < t->n_notes; i++)
        fprintf(out, "note: %s\n", cli_shown(t->notes[i], shown, sizeof shown));
}

void cli_text_footer(FILE *out, const struct cli_target *t)
{
    (void)out;
    (void)t;
}

static void python_line(FILE *out, const struct jitunwind_py_frame *f, const char *indent)
{
    char qualname[4 * sizeof f->qualname], filename[4 * sizeof f->filename], line[16];
    const char *name = f->qualname[0] ? cli_shown(f->qualname, qualname, sizeof qualname)
                                      : "<unknown code>";
    const char *file = cli_shown(f->filename, filename, sizeof filename);
    if (f->line > 0)
        snprintf(line, sizeof line, "%d", f->line);
    else
        snprintf(line, sizeof line, "?");
    if (f->flags & JITUNWIND_PYFRAME_BAD_CODE)
        fprintf(out, "%s[py] <unreadable code object at %#llx> at %s:%s\n", indent,
                (unsigned long long)f->code, file, line);
    else
        fprintf(out, "%s[py] %s%s at %s:%s\n", indent, name,
                f->flags & JITUNWIND_PYFRAME_LINE_MAY_LAG ? " [in JIT code: line may lag]" : "",
                file, line);
}

static void locals_lines(FILE *out, struct cli_target *t, const struct jitunwind_py_frame *f)
{
    static struct jitunwind_py_variable vars[256];
    static char text[512], name[4 * sizeof vars[0].name];
    struct jitunwind_py_repr_options ro = {sizeof ro, 2, 8, 120};
    size_t n = 0, i;
    int rc = jitunwind_pyreader_frame_variables(t->py, f, vars, 256, &n);
    for (i = 0; i < n; i++) {
        if (vars[i].flags & JITUNWIND_PYVAR_UNBOUND) {
            fprintf(out, "            %s = <unbound>\n", cli_shown(vars[i].name, name, sizeof name));
            continue;
        }
        if (jitunwind_pyreader_repr(t->py, vars[i].value, &ro, text, sizeof text, NULL) < 0)
            snprintf(text, sizeof text, "<unreadable %#llx>", (unsigned long long)vars[i].value);
        fprintf(out, "            %s = %s%s\n", cli_shown(vars[i].name, name, sizeof name), text,
                vars[i].flags & JITUNWIND_PYVAR_MAY_BE_STALE ? " (may be stale)" : "");
    }
    if (rc < 0) { /* the reader's message names the field a refused layout lacks */
        static char why[4 * JITUNWIND_ERROR_MESSAGE_MAX];
        const struct jitunwind_error *e = jitunwind_pyreader_last_error(t->py);
        fprintf(out, "            (variables cut short: %s)\n",
                e->code == rc && e->message[0] ? cli_shown(e->message, why, sizeof why)
                                               : jitunwind_strerror(rc));
    }
}

static void native_line(FILE *out, const struct cli_native *n, size_t index)
{
    char label[4 * JITUNWIND_NAME_MAX + CLI_SYMBOL_MAX], module[4096];
    cli_native_label(n, label, sizeof label);
    fprintf(out, "#%-3zu %#018llx in %s", index, (unsigned long long)n->f.regs.pc, label);
    if (!n->has_range && n->module)
        fprintf(out, " from %s", cli_shown(n->module, module, sizeof module));
    fprintf(out, " (%s)\n", jitunwind_frame_source_string((int)n->f.source));
}

void cli_text_stack(FILE *out, struct cli_target *t, const struct cli_stack *s,
                    const struct cli_options *opt)
{
    char shown[4 * sizeof s->pyread.py_error];
    size_t i, hidden_run = 0, unanchored = 0;
    fprintf(out, "\nThread %d", s->thread.tid);
    if (s->thread.name[0])
        fprintf(out, " \"%s\"", cli_shown(s->thread.name, shown, sizeof shown));
    if (s->pyread.python_thread)
        fprintf(out, " (Python%s)", s->pyread.holds_gil == 1 ? ", holds the GIL" : "");
    fprintf(out, ":\n");
    if (!opt->python_only && !s->thread.have_regs)
        fprintf(out, "  (no native frames: %s)\n", s->thread.error);
    for (i = 0; i < s->n_items; i++) {
        const struct jitunwind_mixed_item *it = &s->items[i];
        if (i == s->cut_from && s->cut_to > s->cut_from) {
            fprintf(out, "  ... %zu frame%s left out (--max-frames) ...\n", s->left_out,
                    s->left_out == 1 ? "" : "s");
            hidden_run = 0;
            i = s->cut_to - 1;
            continue;
        }
        if (it->kind == JITUNWIND_MIXED_NATIVE) {
            const struct cli_native *n = &s->native[it->index];
            if (n->hidden) {
                hidden_run++;
                continue;
            }
            if (hidden_run)
                fprintf(out, "     ... %zu interpreter frame%s (--native-all shows them)\n",
                        hidden_run, hidden_run == 1 ? "" : "s");
            hidden_run = 0;
            native_line(out, n, it->index);
            continue;
        }
        if (it->anchor == JITUNWIND_MIXED_NO_ANCHOR && s->n_native && !unanchored++)
            fprintf(out, "  (Python frames that no native frame was found to run:)\n");
        python_line(out, &s->py[it->index], s->n_native ? "      " : "  ");
        if (opt->locals)
            locals_lines(out, t, &s->py[it->index]);
    }
    if (s->n_native && s->stop_reason != JITUNWIND_STOP_END)
        fprintf(out, "  (native stack cut short: %s)\n",
                jitunwind_stop_reason_string(s->stop_reason));
    if (s->pyread.py_status < 0)
        fprintf(out, "  (Python frame chain cut short: %s)\n",
                cli_shown(s->pyread.py_error, shown, sizeof shown));
}
