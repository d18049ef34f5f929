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
    PROFILE_TRAMPOLINE = 3,
    PROFILE_THREAD = 4 /* a root naming a thread (profile_thread_rooted) */
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

/* A run of one stack seen in a row by one thread: the thread's samples in
 * time order, run-length encoded (a thread that stays in one place costs
 * one entry). */
struct profile_run {
    uint32_t stack;    /* index into profile.stacks */
    uint32_t count;
};

struct profile_thread {
    int tid;                 /* OS thread id; 0: a stack no thread was given for */
    char name[64];           /* its name as read from the target (raw) */
    struct profile_run *runs;
    size_t n_runs, cap_runs;
    uint64_t samples;        /* stacks recorded for it, in runs or not */
};

/* At most this many runs are kept for all threads together (8 bytes
 * each): past it, stacks are still counted in the merged profile, and
 * runs_dropped says how many samples the time-ordered view lacks. */
#define PROFILE_MAX_RUNS (16u << 20)

#define PROFILE_HINTS 1024u

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
    struct profile_thread *threads; /* in the order first seen */
    size_t n_threads, cap_threads;
    uint32_t *thread_slots; /* hash: thread index + 1, 0 empty */
    size_t thread_slot_count;
    size_t n_runs;          /* runs of all threads */
    uint64_t runs_dropped;  /* samples past PROFILE_MAX_RUNS */
    double seconds;         /* how long it ran */
    double hz;              /* the rate asked for */
    /* profile_frame_hinted's memo: frame id + 1 by hint and line, 0 empty */
    struct profile_hint {
        uint64_t hint;
        int32_t line;
        uint32_t id_plus_1;
    } hints[PROFILE_HINTS];
};

void profile_init(struct profile *p, double hz);
void profile_free(struct profile *p);
/* The id of a frame (interned), or UINT32_MAX when out of memory. */
uint32_t profile_frame(struct profile *p, uint32_t kind, const char *name, const char *file,
                       int32_t line);
/* As profile_frame, first trying the frame last interned with the same
 * `hint` (a caller's key that usually names one frame, such as a code
 * object's address) and line: the frame is still compared whole, so a hint
 * that names another frame costs only the hashing it did not save. */
uint32_t profile_frame_hinted(struct profile *p, uint64_t hint, uint32_t kind, const char *name,
                              const char *file, int32_t line);
/* The index of thread `tid` in p->threads, added (named `name`, which may
 * be NULL or "") when first seen; UINT32_MAX when out of memory. */
uint32_t profile_thread(struct profile *p, int tid, const char *name);
/* Count one more of the stack `ids` (root first), and append it to thread
 * `thread`'s time order (none when `thread` is not one of p->threads). */
int profile_add_for(struct profile *p, uint32_t thread, const uint32_t *ids, uint32_t depth);
/* What the profile holds at a moment (profile_mark), for profile_rollback
 * to forget the frames and threads added since. */
struct profile_mark {
    size_t n_frames, n_threads;
};
void profile_mark(const struct profile *p, struct profile_mark *m);
/* Forget the frames and threads added since `m` (no stack counted since
 * may name them: see struct profile_pending). */
void profile_rollback(struct profile *p, const struct profile_mark *m);

/* Stacks held back until the process they were read from is known to be
 * still the one sampled (record --nonblocking checks that only every so
 * often): each thread's stack as profile_add_for takes it, in the order
 * taken, with the profile as it was before the first of them. */
struct profile_pending {
    uint32_t *words;   /* per stack: thread, depth, then depth frame ids */
    size_t n_words, cap_words;
    size_t stacks;     /* stacks held */
    uint64_t passes;   /* sampling passes they came from */
    struct profile_mark mark;
};
/* Hold one stack (profile_add_for's arguments); -1 when out of memory. */
int profile_pending_add(struct profile_pending *q, uint32_t thread, const uint32_t *ids,
                        uint32_t depth);
/* Count the stacks held into the profile, in order, and start again. */
void profile_pending_commit(struct profile_pending *q, struct profile *p);
/* Forget the stacks held, and the frames and threads interned since the
 * last commit (they may be another program's); their passes leave
 * p->samples. */
void profile_pending_drop(struct profile_pending *q, struct profile *p);
void profile_pending_free(struct profile_pending *q);

/* Each thread's last stack's outermost ids, kept under the frame-marker
 * proof that vouched for those frames (jitunwind_py_chains_check_proof):
 * while the same proof vouches for them, they are the same frames, and
 * their ids are taken from here instead of being looked up again. */
#define PROFILE_TAILS 32u
struct profile_tails {
    struct profile_tail {
        uint64_t key, proof; /* the thread's key; 0: empty */
        size_t beyond;       /* ids held, root first */
        uint32_t *ids;
        size_t cap;
        uint64_t used;       /* the clock at the last put */
    } slot[PROFILE_TAILS];
    uint64_t clock;
    uint64_t reused;         /* ids taken from here */
};
/* The `beyond` ids (root first) kept for `key` under `proof`, or NULL. */
const uint32_t *profile_tail_get(const struct profile_tails *t, uint64_t key, uint64_t proof,
                                 size_t beyond);
/* Keep ids[0..beyond) (root first) for `key` under `proof` (nonzero),
 * in its slot or the least recently used one. */
void profile_tail_put(struct profile_tails *t, uint64_t key, uint64_t proof, const uint32_t *ids,
                      size_t beyond);
/* Forget every tail (their ids may be gone: profile_rollback). */
void profile_tails_clear(struct profile_tails *t);
void profile_tails_free(struct profile_tails *t);

/* One thread's count of one stack (profile_by_thread). */
struct profile_part {
    uint32_t thread;   /* index into profile.threads; UINT32_MAX: no thread */
    uint32_t stack;    /* index into profile.stacks */
    uint64_t count;
};
/* The stacks' counts split by thread, each thread's parts in the order its
 * stacks were first seen, then the parts no thread's runs hold: *parts
 * (free() it) holds *n_parts entries, and a stack's parts add up to its
 * count. 0, or -1 when out of memory. */
int profile_by_thread(const struct profile *p, struct profile_part **parts, size_t *n_parts);

/* Count `count` more of the stack `ids` (root first) in the merged
 * profile only (no thread's time order). */
int profile_add_counted(struct profile *p, const uint32_t *ids, uint32_t depth, uint64_t count);
/* Into `dst` (profile_init'ed, empty): `src`'s merged stacks, each
 * thread's under a root frame naming it, `Thread TID "name"` as
 * speedscope's profiles are named (the stacks no thread holds as they
 * are); the frame ids of `src` keep their meaning. 0, or -1 when out of
 * memory. */
int profile_thread_rooted(const struct profile *src, struct profile *dst);

/* "leaf (file:line)" for a Python frame, the name for others; escaped
 * (cli_shown). */
void profile_frame_label(const struct profile_frame *f, char *buf, size_t len);
/* The same without the line: `top`'s functions. */
void profile_function_label(const struct profile_frame *f, char *buf, size_t len);

int output_collapsed(FILE *out, const struct profile *p);
int output_speedscope(FILE *out, const struct profile *p);
int output_pprof(FILE *out, const struct profile *p); /* gzipped profile.proto */
int output_flamegraph(FILE *out, const struct profile *p); /* a self-contained SVG */

#endif
