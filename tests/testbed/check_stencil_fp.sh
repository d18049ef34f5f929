#!/bin/sh
# Fails if any stencil instruction mentions the frame pointer: the
# FP_PRESERVING unwind rule of the test bed's executors depends on it.
if objdump -d "$1" | grep -E '%rbp|%ebp'; then
    echo "check_stencil_fp: the stencils in $1 use the frame pointer" >&2
    exit 1
fi
