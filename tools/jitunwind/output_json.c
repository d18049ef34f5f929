/* `jitunwind stack --json`: one JSON document (schema: docs/cli.md).
 * Addresses are strings ("0x..."): JSON numbers lose bits above 2^53. */
#include <string.h>

#include "cli.h"

void cli_json_string(FILE *out, const char *s)
{
    size_t n;
    fputc('"', out);
    for (; s && *s; s += n) {
        long c = jitunwind_utf8_char(s, &n);
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", (int)c);
        else if (c < 0)
            fputs("\\ufffd", out); /* not UTF-8: JSON text must be */
        else if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
            fprintf(out, "\\u%04lx", c); /* controls, C1 included */
        else
            fwrite(s, 1, n, out);
    }
    fputc('"', out);
}

static void hex(FILE *out, const char *key, uint64_t v)
{
    fprintf(out, "\"%s\": \"%#llx\"", key, (unsigned long long)v);
}

void cli_json_begin(FILE *out, const struct cli_target *t)
{
    int i;
    fprintf(out, "{\"schema\": \"jitunwind-stack/1\", \"tool\": ");
    cli_json_string(out, jitunwind_version_string());
    fprintf(out, ",\n \"target\": {");
    if (t->live)
        fprintf(out, "\"pid\": %d, \"core\": null", t->pid);
    else {
        if (t->pid) /* the process it was dumped from */
            fprintf(out, "\"pid\": %d, \"core\": ", t->pid);
        else
            fprintf(out, "\"pid\": null, \"core\": ");
        cli_json_string(out, t->core_path);
    }
    fprintf(out, ", \"python\": \"%u.%u.%u\", \"python_version_hex\": \"%#x\", \"interpreter\": ",
            t->loc.version_hex >> 24, (t->loc.version_hex >> 16) & 0xff,
            (t->loc.version_hex >> 8) & 0xff, t->loc.version_hex);
    cli_json_string(out, t->loc.module);
    fprintf(out, ", \"layout\": ");
    cli_json_string(out, t->py ? jitunwind_pyreader_layout_name(t->py) : "");
    fprintf(out, ", \"ranges\": %zu},\n \"notes\": [", t->reg ? jitunwind_registry_count(t->reg) : 0);
    for (i = 0; i < t->n_notes; i++) {
        if (i)
            fprintf(out, ", ");
        cli_json_string(out, t->notes[i]);
    }
    fprintf(out, "],\n \"threads\": [");
}

static void native_json(FILE *out, const struct cli_native *n, size_t index)
{
    char label[JITUNWIND_NAME_MAX + CLI_SYMBOL_MAX];
    cli_native_label(n, label, sizeof label);
    fprintf(out, "{\"kind\": \"native\", \"index\": %zu, ", index);
    hex(out, "pc", n->f.regs.pc);
    fprintf(out, ", ");
    hex(out, "sp", n->f.regs.sp);
    fprintf(out, ", \"name\": ");
    cli_json_string(out, label);
    fprintf(out, ", \"symbol\": ");
    if (n->symbol[0]) {
        cli_json_string(out, n->symbol);
        fprintf(out, ", \"offset\": %llu", (unsigned long long)n->offset);
    } else
        fprintf(out, "null, \"offset\": null");
    fprintf(out, ", \"module\": ");
    if (n->module)
        cli_json_string(out, n->module);
    else
        fprintf(out, "null");
    fprintf(out, ", \"found_by\": \"%s\", \"role\": \"%s\", \"hidden\": %s, \"range\": ",
            jitunwind_frame_source_string((int)n->f.source), cli_role_name(n->role),
            n->hidden ? "true" : "false");
    if (!n->has_range) {
        fprintf(out, "null}");
        return;
    }
    fprintf(out, "{\"name\": ");
    cli_json_string(out, n->range_name);
    fprintf(out, ", ");
    hex(out, "start", n->range.start);
    fprintf(out, ", ");
    hex(out, "end", n->range.end);
    fprintf(out, ", \"kind\": \"%s\", \"rule\": \"%s\", \"origin\": \"%s\", \"uop\": ",
            jitunwind_range_kind_string(n->range.kind), jitunwind_range_rule_string(n->range.rule),
            jitunwind_range_origin_string(n->range.origin));
    if (n->jit_label[0])
        cli_json_string(out, n->jit_label);
    else
        fprintf(out, "null");
    fprintf(out, "}}");
}

static void locals_json(FILE *out, struct cli_target *t, const struct jitunwind_py_frame *f)
{
    static struct jitunwind_py_variable vars[256];
    static char text[512];
    struct jitunwind_py_repr_options ro = {sizeof ro, 2, 8, 120};
    size_t n = 0, i;
    jitunwind_pyreader_frame_variables(t->py, f, vars, 256, &n);
    fprintf(out, ", \"locals\": [");
    for (i = 0; i < n; i++) {
        fprintf(out, "%s{\"name\": ", i ? ", " : "");
        cli_json_string(out, vars[i].name);
        fprintf(out, ", \"repr\": ");
        if (vars[i].flags & JITUNWIND_PYVAR_UNBOUND)
            fprintf(out, "null");
        else {
            if (jitunwind_pyreader_repr(t->py, vars[i].value, &ro, text, sizeof text, NULL) < 0)
                snprintf(text, sizeof text, "<unreadable %#llx>",
                         (unsigned long long)vars[i].value);
            cli_json_string(out, text);
        }
        fprintf(out, ", \"argument\": %s}", vars[i].flags & JITUNWIND_PYVAR_ARG ? "true" : "false");
    }
    fprintf(out, "]");
}

static void python_json(FILE *out, struct cli_target *t, const struct jitunwind_py_frame *f,
                        uint32_t anchor, const struct cli_options *opt)
{
    static const struct { uint32_t bit; const char *name; } flags[] = {
        {JITUNWIND_PYFRAME_ENTRY, "entry"}, {JITUNWIND_PYFRAME_GENERATOR, "generator"},
        {JITUNWIND_PYFRAME_SHIM, "shim"}, {JITUNWIND_PYFRAME_NAME_TRUNCATED, "name-truncated"},
        {JITUNWIND_PYFRAME_NO_LINE, "no-line"}, {JITUNWIND_PYFRAME_LINE_MAY_LAG, "line-may-lag"},
        {JITUNWIND_PYFRAME_BAD_CODE, "bad-code"}, {JITUNWIND_PYFRAME_IN_JIT, "in-jit"}};
    size_t i;
    int first = 1;
    fprintf(out, "{\"kind\": \"python\", \"function\": ");
    cli_json_string(out, f->qualname);
    fprintf(out, ", \"file\": ");
    cli_json_string(out, f->filename);
    fprintf(out, ", \"line\": %d, \"first_line\": %d, ", f->line, f->first_line);
    hex(out, "code", f->code);
    fprintf(out, ", ");
    hex(out, "frame", f->address);
    if (anchor == JITUNWIND_MIXED_NO_ANCHOR)
        fprintf(out, ", \"anchor\": null, \"flags\": [");
    else
        fprintf(out, ", \"anchor\": %u, \"flags\": [", anchor);
    for (i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (f->flags & flags[i].bit) {
            fprintf(out, "%s\"%s\"", first ? "" : ", ", flags[i].name);
            first = 0;
        }
    fprintf(out, "]");
    if (opt->locals)
        locals_json(out, t, f);
    fprintf(out, "}");
}

void cli_json_stack(FILE *out, struct cli_target *t, const struct cli_stack *s,
                    const struct cli_options *opt, int first)
{
    size_t i;
    fprintf(out, "%s\n  {\"tid\": %d, \"name\": ", first ? "" : ",", s->thread.tid);
    cli_json_string(out, s->thread.name);
    fprintf(out, ", \"python\": %s, \"holds_gil\": %s, \"native_error\": ",
            s->pyread.python_thread ? "true" : "false",
            s->pyread.holds_gil < 0 ? "null" : s->pyread.holds_gil ? "true" : "false");
    if (!opt->python_only && !s->thread.have_regs)
        cli_json_string(out, s->thread.error);
    else
        fprintf(out, "null");
    fprintf(out, ", \"stop_reason\": ");
    if (s->n_native)
        fprintf(out, "\"%s\"", jitunwind_stop_reason_string(s->stop_reason));
    else
        fprintf(out, "null");
    fprintf(out, ", \"python_error\": ");
    if (s->pyread.py_status < 0)
        cli_json_string(out, s->pyread.py_error);
    else
        fprintf(out, "null");
    fprintf(out, ", \"partial\": %s, \"hidden_native\": %zu, \"frames_left_out\": %zu,\n"
                 "   \"frames\": [",
            s->partial ? "true" : "false", s->hidden, s->left_out);
    for (i = 0; i < s->n_items; i++) {
        const struct jitunwind_mixed_item *it = &s->items[i];
        if (i == s->cut_from && s->cut_to > s->cut_from)
            i = s->cut_to; /* --max-frames: the frames between both ends */
        if (i >= s->n_items)
            break;
        it = &s->items[i];
        fprintf(out, "%s\n    ", i ? "," : "");
        if (it->kind == JITUNWIND_MIXED_NATIVE)
            native_json(out, &s->native[it->index], it->index);
        else
            python_json(out, t, &s->py[it->index], it->anchor, opt);
    }
    fprintf(out, "]}");
}

void cli_json_end(FILE *out, const struct cli_target *t, int exit_code)
{
    (void)t;
    fprintf(out, "],\n \"exit_code\": %d}\n", exit_code);
}
