"""Optimisation flags that sanitizer builds leave out.

A package's copts come after --copt on the compiler's command line, so a
library's "-O3" would override the sanitizer configs' level (-O0 for
--config=san, -O1 for asan and ubsan). Instrumented at -O3 the
always-inlined kernels of lib/nn take minutes each to compile
(lib/linalg/gemm.cc: 240 s against 35 s at -O1, measured on 2 cores). Under
--config=san, asan or ubsan these flags are dropped; every other build
gets them unchanged, in the same place, so the stage binaries keep their
bytes.
"""

def optimised(flags):
    """`flags` except under a sanitizer configuration (tools/BUILD)."""
    return select({
        "//tools:sanitized_address": [],
        "//tools:sanitized_address_undefined": [],
        "//tools:sanitized_undefined": [],
        "//conditions:default": flags,
    })
