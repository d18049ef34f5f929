/* For suites that are their own DWARF "libpython" (built with -g, declaring
 * CPython-named types): set the layout fields every such build has from
 * those types with offsetof. A macro, not a function, because each suite
 * declares its own types; the caller adds what its build has besides (GIL,
 * thread-local bytecode). */
#ifndef JU_TEST_LAYOUT_FROM_TYPES_H
#define JU_TEST_LAYOUT_FROM_TYPES_H

#include <stddef.h>

#define JU_LAYOUT_FROM_TYPES(L)                                                         \
    do {                                                                                \
        (L).rt_interpreters_head = offsetof(_PyRuntimeState, interpreters.head);         \
        (L).interp_next = offsetof(PyInterpreterState, next);                            \
        (L).interp_id = offsetof(PyInterpreterState, id);                                \
        (L).interp_threads_head = offsetof(PyInterpreterState, threads.head);            \
        (L).ts_next = offsetof(PyThreadState, next);                                     \
        (L).ts_interp = offsetof(PyThreadState, interp);                                 \
        (L).ts_current_frame = offsetof(PyThreadState, current_frame);                   \
        (L).ts_thread_id = offsetof(PyThreadState, thread_id);                           \
        (L).ts_native_thread_id = offsetof(PyThreadState, native_thread_id);             \
        (L).fr_code = offsetof(struct _PyInterpreterFrame, f_executable);                \
        (L).fr_previous = offsetof(struct _PyInterpreterFrame, previous);                \
        (L).fr_instr = offsetof(struct _PyInterpreterFrame, instr_ptr);                  \
        (L).fr_owner = offsetof(struct _PyInterpreterFrame, owner);                      \
        (L).fr_size = sizeof(struct _PyInterpreterFrame);                                \
        (L).co_filename = offsetof(PyCodeObject, co_filename);                           \
        (L).co_name = offsetof(PyCodeObject, co_name);                                   \
        (L).co_qualname = offsetof(PyCodeObject, co_qualname);                           \
        (L).co_linetable = offsetof(PyCodeObject, co_linetable);                         \
        (L).co_firstlineno = offsetof(PyCodeObject, co_firstlineno);                     \
        (L).co_code_adaptive = offsetof(PyCodeObject, co_code_adaptive);                 \
        (L).co_size = (L).co_code_adaptive + 8;                                          \
        (L).ob_type = offsetof(PyObject, ob_type);                                       \
        (L).tp_name = offsetof(PyTypeObject, tp_name);                                   \
        (L).bytes_size = offsetof(PyBytesObject, ob_base.ob_size);                       \
        (L).bytes_sval = offsetof(PyBytesObject, ob_sval);                               \
        (L).str_length = offsetof(PyASCIIObject, length);                                \
        (L).str_state = offsetof(PyASCIIObject, state);                                  \
        (L).str_ascii_size = sizeof(PyASCIIObject);                                      \
        (L).str_compact_size = sizeof(PyCompactUnicodeObject);                           \
        (L).str_legacy_data = offsetof(PyUnicodeObject, data);                           \
    } while (0)

#endif
