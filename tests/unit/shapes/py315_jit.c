/* CPython 3.15-shaped JIT structs, declared here (not copied) the way the
 * interpreter's own headers shape them on CPython's main branch after
 * gh-144888 (executors in arrays): Include/internal/pycore_optimizer.h,
 * pycore_uop.h and pycore_interp_structs.h, Python/jit.c's StencilGroup.
 * Built with -g into a shared object whose DWARF the JIT view suites feed
 * to the reader as a real libpython's would be (jitunwind_pyreader_open
 * with .module): the 3.15 layout takes every executor offset from it.
 *
 * -DPY315_WITHOUT_TRACE renames _PyExecutorObject.trace (keeping every
 * offset): a build whose DWARF lacks a field the JIT view needs. PyInterpreterState keeps only
 * the executor members, after padding that keeps them clear of what the
 * synthetic images write into an interpreter. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct _PyExecutorLinkListNode {
    struct _PyExecutorObject *next;
    struct _PyExecutorObject *previous;
} _PyExecutorLinkListNode;

typedef struct {
    uint8_t opcode;
    uint8_t oparg;
    uint8_t valid;
    uint8_t chain_depth;
    bool cold;
    uint8_t pending_deletion;
    int32_t index;
    int32_t bloom_array_idx;
    _PyExecutorLinkListNode links;
    void *code;
} _PyVMData;

typedef struct _PyExitData {
    uint32_t target;
    uint16_t index : 12;
    uint16_t stack_cache : 2;
    uint16_t is_dynamic : 1;
    uint16_t is_control_flow : 1;
    uint16_t temperature;
    struct _PyExecutorObject *executor;
} _PyExitData;

typedef struct _PyUOpInstruction {
    uint16_t opcode : 15;
    uint16_t format : 1;
    uint16_t oparg;
    union {
        uint32_t target;
        struct {
            uint16_t jump_target;
            uint16_t error_target;
        };
    };
    uint64_t operand0;
    uint64_t operand1;
} _PyUOpInstruction;

typedef struct {
    intptr_t ob_refcnt;
    void *ob_type;
    intptr_t ob_size;
} PyVarObject;

typedef struct _PyExecutorObject {
    PyVarObject ob_base;
#ifdef PY315_WITHOUT_TRACE
    const void *not_the_trace; /* the same room under another name: no `trace` */
#else
    const _PyUOpInstruction *trace;
#endif
    _PyVMData vm_data;
    uint32_t exit_count;
    uint32_t code_size;
    size_t jit_size;
    void *jit_code;
    _PyExitData exits[1];
} _PyExecutorObject;

typedef struct {
    uint32_t bits[8];
} _PyBloomFilter;

typedef struct _is {
    char before[3072];
    _PyBloomFilter *executor_blooms;
    _PyExecutorObject **executor_ptrs;
    size_t executor_count;
    size_t executor_capacity;
    _PyExecutorObject *executor_deletion_list_head;
    _PyExecutorObject *cold_executor;
    _PyExecutorObject *cold_dynamic_executor;
} PyInterpreterState;

typedef struct {
    void (*emit)(unsigned char *code, unsigned char *data, void *executor);
    size_t code_size;
    size_t data_size;
    uint32_t trampoline_mask[4];
} StencilGroup;

/* Objects of each type, so that the DWARF describes them. */
_PyExecutorObject py315_executor;
_PyUOpInstruction py315_uop;
PyInterpreterState py315_interp;
StencilGroup py315_stencil;
