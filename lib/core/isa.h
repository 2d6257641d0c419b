// Instruction-set levels of the project's vector kernels, and the one define
// that pins a level in a test's or a benchmark's build.
//
// A kernel either carries POTTS_CLONED_KERNEL (GCC's target_clones: one
// body, compiled for AVX-512, AVX2 and baseline x86-64, the loader picking
// one) or, where each level needs its own register tile, is written once per
// level and chosen by isa_level(). Every level runs the same IEEE operations
// in the same order (no FMA: -ffp-contract=off), so every level gives the
// same bits; each kernel's tests run once per pinned level.
//
// POTTS_ISA_PIN (0 baseline, 1 AVX2, 2 AVX-512) compiles cloned kernels for
// that level alone and caps isa_level() there. Unset, the CPU decides. Set
// it for a whole build (a --copt, as tools/isa_pin.bzl does), never for one
// library: isa_level() is an inline function, one definition per program.
#pragma once

namespace potts {

enum class IsaLevel { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };

#if !defined(POTTS_ISA_PIN)
#define POTTS_CLONED_KERNEL __attribute__((target_clones("avx512f", "avx2", "default"), noinline))
#elif POTTS_ISA_PIN == 0
#define POTTS_CLONED_KERNEL __attribute__((noinline))
#elif POTTS_ISA_PIN == 1
#define POTTS_CLONED_KERNEL __attribute__((target("avx2"), noinline))
#elif POTTS_ISA_PIN == 2
#define POTTS_CLONED_KERNEL __attribute__((target("avx512f"), noinline))
#else
#error "POTTS_ISA_PIN: expected 0 (baseline), 1 (AVX2) or 2 (AVX-512)"
#endif

// The highest level this CPU runs (AVX-512 means AVX-512F), capped by
// POTTS_ISA_PIN; read once.
inline IsaLevel isa_level() {
  static const IsaLevel level = [] {
    __builtin_cpu_init();
    IsaLevel cpu = __builtin_cpu_supports("avx512f") ? IsaLevel::kAvx512
                   : __builtin_cpu_supports("avx2")  ? IsaLevel::kAvx2
                                                     : IsaLevel::kBaseline;
#if defined(POTTS_ISA_PIN)
    if (int(cpu) > POTTS_ISA_PIN) cpu = IsaLevel(POTTS_ISA_PIN);
#endif
    return cpu;
  }();
  return level;
}

// Whether this CPU runs the pinned level (a pinned test skips where not).
inline bool isa_pin_runs_here() {
#if defined(POTTS_ISA_PIN)
  __builtin_cpu_init();
  return POTTS_ISA_PIN == 0 || (POTTS_ISA_PIN == 1 && __builtin_cpu_supports("avx2")) ||
         (POTTS_ISA_PIN == 2 && __builtin_cpu_supports("avx512f"));
#else
  return true;
#endif
}

inline const char* isa_name(IsaLevel level) {
  return level == IsaLevel::kAvx512 ? "avx512" : level == IsaLevel::kAvx2 ? "avx2" : "baseline";
}

}  // namespace potts
