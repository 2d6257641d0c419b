// Instruction-set levels of the project's vector kernels: how a kernel gets
// one clone per level, and the one define that pins a level.
//
// Levels: AVX-512 (AVX-512F), AVX2 (with FMA; every CPU with AVX2 has had
// it) and baseline x86-64 (SSE2). Two spellings of one rule:
//
//  * POTTS_ISA_CLONED before a function: the compiler compiles its one body
//    once per level and the loader picks the CPU's (GCC's target_clones;
//    POTTS_ISA_CLONED_AVX2 for a body written for 256-bit vectors, below);
//  * POTTS_ISA_CLONES(M), where a level needs code of its own (a register
//    tile sized to the level's registers): M(level, suffix, attributes)
//    stamps one function per level from an always-inline body, e.g.
//      #define AXPY_CLONE(level, suffix, attrs)
//        attrs void axpy_##suffix(...) { axpy_body<level>(...); }
//      POTTS_ISA_CLONES(AXPY_CLONE)
//    and isa_pick(axpy_avx512, axpy_avx2, axpy_baseline) is the CPU's.
//
// Every level runs the same IEEE operations in the same order (no
// contraction: -ffp-contract=off; the one kernel that fuses multiply and
// add, lib/nn's factored_fused, does so at every level, in software on
// baseline x86-64): the same bits.
// tools/isa.bzl builds each cloned library once per pinned level and runs its
// tests against every build.
//
// POTTS_ISA_PIN (0 baseline, 1 AVX2, 2 AVX-512) compiles POTTS_ISA_CLONED
// for that level alone and caps isa_level() in the translation units
// compiled with it (isa_level has internal linkage), so a test may pin one
// library (local_defines) while the rest of the program keeps the CPU's.
#pragma once

namespace potts {

enum class IsaLevel { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };

// POTTS_ISA_CLONED_AVX2: the same for a kernel written for vectors of 256
// bits, whose clones stop at AVX2 (an AVX-512 CPU runs the AVX2 clone): an
// AVX-512 clone of the Gibbs sweep and of the lib/nn layers measured 5-7 %
// slower than their AVX2 clone on an AVX-512 machine.
#if !defined(POTTS_ISA_PIN)
#define POTTS_ISA_CLONED __attribute__((target_clones("avx512f", "avx2", "default"), noinline))
#define POTTS_ISA_CLONED_AVX2 __attribute__((target_clones("avx2", "default"), noinline))
#elif POTTS_ISA_PIN == 0
#define POTTS_ISA_CLONED __attribute__((noinline))
#define POTTS_ISA_CLONED_AVX2 __attribute__((noinline))
#elif POTTS_ISA_PIN == 1
#define POTTS_ISA_CLONED __attribute__((target("avx2"), noinline))
#define POTTS_ISA_CLONED_AVX2 __attribute__((target("avx2"), noinline))
#else
#define POTTS_ISA_CLONED __attribute__((target("avx512f"), noinline))
#define POTTS_ISA_CLONED_AVX2 __attribute__((target("avx2"), noinline))
#endif

// One function per level.
#define POTTS_ISA_CLONES(M)                                                           \
  M(::potts::IsaLevel::kAvx512, avx512, __attribute__((target("avx512f"), noinline))) \
  M(::potts::IsaLevel::kAvx2, avx2, __attribute__((target("avx2"), noinline)))        \
  M(::potts::IsaLevel::kBaseline, baseline, __attribute__((noinline)))

#if defined(POTTS_ISA_PIN) && (POTTS_ISA_PIN < 0 || POTTS_ISA_PIN > 2)
#error "POTTS_ISA_PIN: expected 0 (baseline), 1 (AVX2) or 2 (AVX-512)"
#endif

// The level this CPU runs: AVX-512 means AVX-512F, AVX2 means AVX2 with
// FMA (every CPU with AVX2 has had FMA); read once per translation unit,
// capped by POTTS_ISA_PIN.
static inline IsaLevel isa_level() {
  static const IsaLevel level = [] {
    __builtin_cpu_init();
    const bool fma = __builtin_cpu_supports("fma");
    IsaLevel cpu = __builtin_cpu_supports("avx512f") && fma ? IsaLevel::kAvx512
                   : __builtin_cpu_supports("avx2") && fma  ? IsaLevel::kAvx2
                                                            : IsaLevel::kBaseline;
#if defined(POTTS_ISA_PIN)
    if (int(cpu) > POTTS_ISA_PIN) cpu = IsaLevel(POTTS_ISA_PIN);
#endif
    return cpu;
  }();
  return level;
}

// The clone of isa_level().
template <class F>
static inline F isa_pick(F avx512, F avx2, F baseline) {
  switch (isa_level()) {
    case IsaLevel::kAvx512:
      return avx512;
    case IsaLevel::kAvx2:
      return avx2;
    case IsaLevel::kBaseline:
      break;
  }
  return baseline;
}

// Whether this CPU runs the pinned level (a pinned test skips where not).
static inline bool isa_pin_runs_here() {
#if defined(POTTS_ISA_PIN)
  return int(isa_level()) == POTTS_ISA_PIN;
#else
  return true;
#endif
}

inline const char* isa_name(IsaLevel level) {
  return level == IsaLevel::kAvx512 ? "avx512" : level == IsaLevel::kAvx2 ? "avx2" : "baseline";
}

}  // namespace potts
