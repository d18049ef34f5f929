/* A reader that wraps another and fails exactly its Nth read (1-based), for
 * sweeping every failure point of an operation. */
#ifndef JU_TEST_FAULTY_H
#define JU_TEST_FAULTY_H

#include "jitunwind/jitunwind.h"

struct ju_faulty {
    struct jitunwind_memory inner;
    uint64_t fail_at; /* 0: never */
    uint64_t reads;
};

struct jitunwind_memory ju_faulty_memory(struct ju_faulty *f);

#endif
