// The compilation of lib/nn's hand-written kernels (internal to lib/nn).
//
// The hand-written kernels are compiled twice (AVX2 and baseline x86-64; the
// loader picks one for the CPU). Without FMA contraction or reassociation,
// both run the same IEEE operations per element in the same order: the same
// bits on every machine. POTTS_NN_BASELINE_ONLY builds the baseline alone
// (lib/nn:same_bits_test compares the two builds). The fused factored-
// attention kernel is the exception that proves the rule: it multiplies and
// adds with one rounding (fma), by the FMA instruction where the CPU has AVX2
// and FMA and by glibc's correctly rounded fma() elsewhere, the same bits.
#pragma once

#ifdef POTTS_NN_BASELINE_ONLY
#define POTTS_NN_KERNEL
#else
#define POTTS_NN_KERNEL __attribute__((target_clones("avx2", "default")))
#endif

#include <armadillo>

namespace potts::nn {

// C = op(A) op(B) + bias 1^T (gemm.cc): each element the sum, then plus its
// row's bias, the same rounding as gemm followed by the addition.
void gemm_bias(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const double* A, arma::uword lda,
               const double* B, arma::uword ldb, double* C, arma::uword ldc, const double* bias);
void gemm_bias(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const float* A, arma::uword lda,
               const float* B, arma::uword ldb, float* C, arma::uword ldc, const float* bias);

}  // namespace potts::nn
