/* State shared between the shim (jit.c) and the stencils (stencils.c). The
 * stencils are compiled without Python headers, so PyObject is opaque here. */
#ifndef JITBED_STATE_H
#define JITBED_STATE_H

typedef void *PyObjectPtr;

struct jitbed_state {
    PyObjectPtr callable;
    PyObjectPtr result; /* new reference, or NULL with an exception set */
    long counter;
    long checksum;
    int done;
};

#endif
