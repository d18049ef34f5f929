/* Stencils of the test bed's copy-and-patch JIT, compiled like CPython's:
 * at build time, into an object file whose relocations are the holes.
 *
 * Build flags (CMakeLists.txt): -O2 -fomit-frame-pointer -ffixed-rbp, so no
 * stencil ever touches RBP and RBP keeps pointing at the shim's frame record
 * while JIT code runs; -mcmodel=large -fno-pic, so every reference to an
 * extern symbol is an absolute 64-bit hole (R_X86_64_64); no unwind tables.
 *
 * A stencil takes the state pointer and tail-calls the next stencil through
 * the hole _JIT_CONTINUE (a jmp, checked by the extractor); the last one
 * returns to the shim. */
#include "jitbed_state.h"

extern char _JIT_CONTINUE[];
extern char _JIT_OPERAND[];
extern PyObjectPtr jitbed_call_python(PyObjectPtr callable);

typedef void (*stencil_fn)(struct jitbed_state *);

#define CONTINUE(st) ((stencil_fn)_JIT_CONTINUE)(st)

void stencil_enter(struct jitbed_state *st)
{
    st->counter = (long)(unsigned long)_JIT_OPERAND;
    st->checksum = 0;
    CONTINUE(st);
}

void stencil_work(struct jitbed_state *st)
{
    long i, sum = st->checksum;
    for (i = 0; i < st->counter; i++)
        sum = sum * 31 + i;
    st->checksum = sum;
    CONTINUE(st);
}

void stencil_call(struct jitbed_state *st)
{
    st->result = jitbed_call_python(st->callable);
    CONTINUE(st);
}

void stencil_check(struct jitbed_state *st)
{
    if (!st->result)
        st->checksum = -1;
    CONTINUE(st);
}

void stencil_exit(struct jitbed_state *st)
{
    st->done = 1;
}
