// Dense matrix products with BLAS's argument conventions whose bits do not
// depend on the CPU (gemm.cc): lib/nn's layers and the models' gradients.
//
// Tested by //lib/linalg:gemm_test, bit for bit against the plain loops, at
// every instruction-set level (tools/isa.bzl).
#pragma once
#include <armadillo>

namespace potts {

// C = alpha op(A) op(B) + beta C, column-major, with the arguments of BLAS
// xGEMM (op(X) = X^T when trans_x; op(A): m x k, op(B): k x n, C: m x n).
// Hand-written (not BLAS): each element is the sequential sum over p of the
// products, then alpha s + beta c (alpha s when beta == 0, C then unread),
// the same bits on every x86-64 CPU. See gemm.cc.
void gemm(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, double alpha, const double* A,
          arma::uword lda, const double* B, arma::uword ldb, double beta, double* C, arma::uword ldc);
void gemm(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, float alpha, const float* A,
          arma::uword lda, const float* B, arma::uword ldb, float beta, float* C, arma::uword ldc);

// C = op(A) op(B) + bias 1^T (gemm.cc): each element the sum, then plus its
// row's bias, the same rounding as gemm followed by the addition.
void gemm_bias(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const double* A,
               arma::uword lda, const double* B, arma::uword ldb, double* C, arma::uword ldc, const double* bias);
void gemm_bias(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const float* A, arma::uword lda,
               const float* B, arma::uword ldb, float* C, arma::uword ldc, const float* bias);

}  // namespace potts
