/* A function that realigns its stack and so defines its CFA from rbx, as
 * ld.so's lazy-binding resolver does (realigned_call.c, x86-64 only): a
 * walk through it needs rbx as it was on entry, which the function it
 * calls may have saved and changed. */
#ifndef JU_TEST_REALIGNED_CALL_H
#define JU_TEST_REALIGNED_CALL_H

#include <stdint.h>

#if defined(__x86_64__)
/* push rbx; rbx = sp; sp aligned down to 64; call fn; undone; return what
 * fn returned. ju_realigned_call_ret is the return address of that call. */
uint64_t ju_realigned_call(uint64_t (*fn)(void));
extern char ju_realigned_call_ret[];
#endif

#endif
