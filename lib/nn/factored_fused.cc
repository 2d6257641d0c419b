#include "lib/nn/layers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

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

// a * b + c lane by lane, rounded once (IEEE fma): compiled for a level with
// FMA (the AVX2 and AVX-512 clones, target "...,fma") one FMA instruction,
// on baseline x86-64 glibc's correctly rounded fma(). The same bits.
template <class V>
static inline __attribute__((always_inline)) V madd_lanes(V a, V b, V c) {
  V r;
  for (int l = 0; l < 4; ++l) r[l] = std::fma(a[l], b[l], c[l]);
  return r;
}

#include "lib/nn/factored_fused.inc"

// One kernel per level and vector count (lib/core/isa.h), with FMA.
#define POTTS_FUSED_CLONE(level, suffix, attrs)                                                                 \
  template <class T, int NV>                                                                                    \
  attrs double fused_##suffix(const int* s, const int* t, arma::uword B, const T* A, const T* V, arma::uword L, \
                              T* dA, T* dV) {                                                                   \
    return fused_kernel<T, NV>(s, t, B, A, V, L, dA, dV);                                                       \
  }
POTTS_ISA_CLONES_WITH(POTTS_FUSED_CLONE, ",fma")
#undef POTTS_FUSED_CLONE

template <class T, int NV>
static double factored_fused_impl(const int* s, const int* t, arma::uword B, const T* A, const T* V, arma::uword L,
                                  T* dA, T* dV) {
  return isa_pick(fused_avx512<T, NV>, fused_avx2<T, NV>, fused_baseline<T, NV>)(s, t, B, A, V, L, dA, dV);
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
    case 1: return factored_fused_impl<T, 1>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 2: return factored_fused_impl<T, 2>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 3: return factored_fused_impl<T, 3>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 4: return factored_fused_impl<T, 4>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 5: return factored_fused_impl<T, 5>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 6: return factored_fused_impl<T, 6>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 7: return factored_fused_impl<T, 7>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    default: return factored_fused_impl<T, 8>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
  }
}

// The two instantiations.
template double factored_attention_fused(const std::vector<int>&, const std::vector<int>&, const Mat<double>&,
                                         const Mat<double>&, arma::uword, Mat<double>*, Mat<double>*);
template double factored_attention_fused(const std::vector<int>&, const std::vector<int>&, const Mat<float>&,
                                         const Mat<float>&, arma::uword, Mat<float>*, Mat<float>*);

}  // namespace nn
}  // namespace potts
