// The same bytes on every x86-64 CPU: pinning the two libraries that choose
// their code by CPU when a process starts (paper/paper.md, "Reproducing and
// auditing"; checked by //tests/determinism:cross_cpu_test).
//
//  * OpenBLAS, and the LAPACK routines built on it, picks a kernel family
//    (Zen, Haswell, SkylakeX, ...) from the CPU; the families round products
//    differently (FMA, blocking). OPENBLAS_CORETYPE=Prescott selects the SSE3
//    kernels without FMA, which every x86-64 CPU in use runs, identically.
//  * glibc's libm (exp, log, pow, tanh, ...) picks FMA/AVX2 variants where the
//    CPU has them. GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4 selects the
//    SSE2 variants that every x86-64 CPU runs.
//
// Both settings are read before main() (OpenBLAS's constructor, the loader's
// ifunc resolution), so pin_numeric_environment() re-executes the program
// once with them set. The project's own kernels need no pin: they are
// compiled without FMA contraction and their AVX2 clones give the same bits
// as the baseline ones (//lib/nn:layer_bits_test and //lib/potts:gibbs_test at every level).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace potts {

inline constexpr const char* kOpenblasCoretype = "Prescott";
inline constexpr const char* kGlibcTunables = "glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4";
// Set to 1 to run with the CPU's own choices (diagnostics only: the outputs
// may then differ between machines; the provenance record says "pinned": false).
inline constexpr const char* kUnpinnedVariable = "POTTS_UNPINNED_NUMERICS";

// Returns if the environment is pinned (or pinning is switched off); else
// re-executes /proc/self/exe with argv and the two variables set. Throws
// StageError if that is impossible.
void pin_numeric_environment(char** argv);

// After pinning: OpenBLAS runs the pinned family (else StageError) and uses
// one thread. Results then depend on neither the CPU nor the thread count.
void check_numeric_environment();

// For provenance: the pinned settings, whether they are in force, the
// OpenBLAS family that ran and glibc's version.
nlohmann::json numeric_environment();

}  // namespace potts
