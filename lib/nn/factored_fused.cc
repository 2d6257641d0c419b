#include "lib/nn/layers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <immintrin.h>

#include "lib/core/isa.h"

namespace potts {
namespace nn {

// Four lanes of T as a GCC vector: 32 bytes for double (one AVX2 register, two
// SSE2 registers in the baseline clone), 16 for float. Lane-wise operations
// only, so every element sees the same IEEE operations in either clone.
template <class T>
struct Lanes4;
template <>
struct Lanes4<double> {
  typedef double type __attribute__((vector_size(32)));
};
template <>
struct Lanes4<float> {
  typedef float type __attribute__((vector_size(16)));
};

template <class T>
static inline __attribute__((always_inline)) typename Lanes4<T>::type load_lanes(const T* p) {
  typename Lanes4<T>::type v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
static inline __attribute__((always_inline)) void store_lanes(T* p, typename Lanes4<T>::type v) {
  std::memcpy(p, &v, sizeof v);
}

template <class T>
static inline __attribute__((always_inline)) typename Lanes4<T>::type splat_lanes(T x) {
  return typename Lanes4<T>::type{x, x, x, x};
}

bool factored_attention_fused_supports(arma::uword C) { return C >= 4 && C <= 32 && C % 4 == 0; }

// Multiply-add of the fused kernel, a * b + c rounded once (IEEE fma): the FMA
// instruction on CPUs with AVX2 and FMA, glibc's fma() lane by lane
// elsewhere (correctly rounded in software where the CPU has no FMA). Both
// give the same bits, so the fused kernel does not depend on the CPU.
struct SoftwareFma {
  template <class V>
  static inline __attribute__((always_inline)) V madd(V a, V b, V c) {
    V r;
    for (int l = 0; l < 4; ++l) r[l] = std::fma(a[l], b[l], c[l]);
    return r;
  }
};
struct HardwareFma {
  static inline __attribute__((always_inline, target("avx2,fma"))) Lanes4<double>::type madd(Lanes4<double>::type a,
                                                                                             Lanes4<double>::type b,
                                                                                             Lanes4<double>::type c) {
    return (Lanes4<double>::type)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
  }
  static inline __attribute__((always_inline, target("avx2,fma"))) Lanes4<float>::type madd(Lanes4<float>::type a,
                                                                                            Lanes4<float>::type b,
                                                                                            Lanes4<float>::type c) {
    return (Lanes4<float>::type)_mm_fmadd_ps((__m128)a, (__m128)b, (__m128)c);
  }
};

// The fused kernel's buffers (factored_fused.inc), as raw pointers into the
// kernel's own vectors. Az: A with a zero diagonal; H, Gc: one column of L
// rows per colour of s; E: the target rows' logits, then dz; nu target rows,
// n colours of s.
template <class T>
struct FusedWork {
  arma::uword L, L4, nu, n;
  T *Az, *E, *H, *Gc, *Vs, *dAb, *mx, *zt, *G;
  arma::uword *rows, *colour, *group;
  int* slot;
};

// The kernel, once per multiply-add (lib/nn/factored_fused.inc).
#define POTTS_FUSED_FN(x) factored_fused_fma_##x
#define POTTS_FUSED_ATTR __attribute__((noinline, target("avx2,fma")))
#define POTTS_FUSED_INLINE inline __attribute__((always_inline, target("avx2,fma")))
#define POTTS_FUSED_MADD HardwareFma::madd
#include "lib/nn/factored_fused.inc"
#undef POTTS_FUSED_FN
#undef POTTS_FUSED_ATTR
#undef POTTS_FUSED_INLINE
#undef POTTS_FUSED_MADD
#define POTTS_FUSED_FN(x) factored_fused_baseline_##x
#define POTTS_FUSED_ATTR __attribute__((noinline))
#define POTTS_FUSED_INLINE inline __attribute__((always_inline))
#define POTTS_FUSED_MADD SoftwareFma::madd
#include "lib/nn/factored_fused.inc"
#undef POTTS_FUSED_FN
#undef POTTS_FUSED_ATTR
#undef POTTS_FUSED_INLINE
#undef POTTS_FUSED_MADD

template <class T, int NV>
static double factored_fused_impl(const int* s, const int* t, arma::uword B, const T* A, const T* V, arma::uword L,
                                  T* dA, T* dV) {
  // The FMA instruction on AVX2 and AVX-512 (whose every CPU has FMA, as
  // lib/core/isa.h counts them); the AVX2 compilation serves both, the
  // kernel's vectors being 4 lanes wide.
  if (isa_level() >= IsaLevel::kAvx2) return factored_fused_fma_kernel<T, NV>(s, t, B, A, V, L, dA, dV);
  return factored_fused_baseline_kernel<T, NV>(s, t, B, A, V, L, dA, dV);
}

template <class T>
double factored_attention_fused(const std::vector<int>& sequences, const std::vector<int>& targets, const Mat<T>& A,
                                const Mat<T>& V, arma::uword L, Mat<T>* dA, Mat<T>* dV) {
  const arma::uword C = V.n_rows, B = sequences.size() / L;
  if (!factored_attention_fused_supports(C) || V.n_cols != C || A.n_rows != L || A.n_cols != L ||
      targets.size() != sequences.size() || (dA == nullptr) != (dV == nullptr))
    throw std::invalid_argument("factored_attention_fused: unsupported shapes");
  T* ga = dA ? dA->memptr() : nullptr;
  T* gv = dV ? dV->memptr() : nullptr;
  const int* s = sequences.data();
  const int* t = targets.data();
  switch (C / 4) {
    case 1:
      return factored_fused_impl<T, 1>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 2:
      return factored_fused_impl<T, 2>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 3:
      return factored_fused_impl<T, 3>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 4:
      return factored_fused_impl<T, 4>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 5:
      return factored_fused_impl<T, 5>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 6:
      return factored_fused_impl<T, 6>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 7:
      return factored_fused_impl<T, 7>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    default:
      return factored_fused_impl<T, 8>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
  }
}

// The two instantiations.
template double factored_attention_fused(const std::vector<int>&, const std::vector<int>&, const Mat<double>&,
                                         const Mat<double>&, arma::uword, Mat<double>*, Mat<double>*);
template double factored_attention_fused(const std::vector<int>&, const std::vector<int>&, const Mat<float>&,
                                         const Mat<float>&, arma::uword, Mat<float>*, Mat<float>*);

}  // namespace nn
}  // namespace potts
