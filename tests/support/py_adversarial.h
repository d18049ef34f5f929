/* Hostile objects for the value renderer, built once for the tests that
 * check it stays bounded (check_py_values: exact markers; check_fault_sweep:
 * every read failing in turn): sizes of 2**40, type pointers to unmapped
 * and to garbage memory, strings running into an unmapped page, deep
 * nesting and cycles. */
#ifndef JU_TEST_PY_ADVERSARIAL_H
#define JU_TEST_PY_ADVERSARIAL_H

#include "py_objects.h"

struct pyo_adversarial {
    uint64_t one;            /* the int 1, the item of the lists below */
    uint64_t huge_list;      /* [1] claiming 2**40 items */
    uint64_t unmapped_type;  /* an object whose type pointer is in an unmapped page */
    uint64_t garbage_type;   /* an object whose type is mapped garbage (name pointer too) */
    uint64_t str_at_gap;     /* a compact ASCII str of 300 characters whose data ends
                              * 10 bytes ("0123456789") before an unmapped page */
    uint64_t huge_str;       /* "abc" claiming 2**40 characters */
    uint64_t huge_int;       /* 7 claiming 2**40 digits */
    uint64_t huge_set;       /* a set of 2**40 slots, all empty */
    uint64_t deep_chain;     /* 1,000 lists nested, innermost [1] */
    uint64_t deep_chain_end; /* that innermost list */
    uint64_t deep_cycle;     /* 1,000 nested lists whose innermost holds the outermost */
    uint64_t huge_dict;      /* {'k': 1} whose keys object claims 2**40 entries */
    uint64_t self_list;      /* [1, itself] */
    uint64_t self_dict;      /* {'self': itself} */
    uint64_t all;            /* a list of every object above */
};

void pyo_adversarial(struct pyo *o, struct pyo_adversarial *a);

#endif
