/* A profile being recorded: frames interned once, stacks counted by their
 * frame ids (root first). What the output formats read. */
#ifndef JITUNWIND_CLI_PROFILE_H
#define JITUNWIND_CLI_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum profile_frame_kind {
    PROFILE_PYTHON = 0,
    PROFILE_NATIVE = 1,
    PROFILE_JIT = 2,
    PROFILE_TRAMPOLINE = 3
};

struct profile_frame {
    uint32_t kind;     /* enum profile_frame_kind */
    int32_t line;      /* Python: the line; otherwise 0 */
    char *name;        /* function, symbol or range name */
    char *file;        /* Python file or native module, "" when none */
};

struct profile_stack {
    uint32_t *frames;  /* frame ids, root first */
    uint32_t depth;
    uint64_t count;
};

struct profile {
    struct profile_frame *frames;
    size_t n_frames, cap_frames;
    uint32_t *frame_slots;  /* hash: frame id + 1, 0 empty */
    size_t frame_slot_count;
    struct profile_stack *stacks;
    size_t n_stacks, cap_stacks;
    uint32_t *stack_slots;  /* hash: stack index + 1, 0 empty */
    size_t stack_slot_count;
    uint64_t samples;       /* sampling passes */
    uint64_t stacks_seen;   /* thread stacks recorded */
    double seconds;         /* how long it ran */
    double hz;              /* the rate asked for */
};

void profile_init(struct profile *p, double hz);
void profile_free(struct profile *p);
/* The id of a frame (interned), or UINT32_MAX when out of memory. */
uint32_t profile_frame(struct profile *p, uint32_t kind, const char *name, const char *file,
                       int32_t line);
/* Count one more of the stack `ids` (root first). */
int profile_add(struct profile *p, const uint32_t *ids, uint32_t depth);
/* "leaf (file:line)" for a Python frame, the name for others; escaped
 * (cli_shown). */
void profile_frame_label(const struct profile_frame *f, char *buf, size_t len);
/* The same without the line: `top`'s functions. */
void profile_function_label(const struct profile_frame *f, char *buf, size_t len);

int output_collapsed(FILE *out, const struct profile *p);
int output_speedscope(FILE *out, const struct profile *p);
int output_pprof(FILE *out, const struct profile *p); /* gzipped profile.proto */

#endif
