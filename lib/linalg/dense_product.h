// C = op(A) op(B) for the attention model's three large products
// (attention_potts.h), column-major with BLAS's argument conventions
// (op(X) = X^T when trans_x; op(A): m x k, op(B): k x n, C: m x n, every
// entry of C written).
//
// Every element is the sequential sum s = 0; s += op(A)[i, p] op(B)[p, j]
// for p = 0, ..., k - 1, one rounding per product and per sum: the bits of
// lib/nn's gemm with alpha = 1 and beta = 0 (tested bit for bit), on every
// x86-64 CPU and at any thread count (threads split C's columns). Unlike
// that gemm, which is tuned for the training's narrow shapes, it packs both
// operands (Goto's scheme: blocks of k that stay in cache, a tile of C in
// registers), so that products with hundreds of rows and columns run near
// the core's rate for separate multiplications and additions. The tile is
// sized per instruction-set level (lib/core/isa.h), so that it stays in the
// level's registers: two vectors of rows by 12 columns on AVX-512 (32 zmm),
// by 6 on AVX2 (16 ymm) and on baseline x86-64 (16 xmm).
//
// Tested by //lib/linalg:dense_product_test at every level the CPU runs.
#pragma once
#include <armadillo>

#include "lib/core/isa.h"

namespace potts {

void dense_product(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const double* A,
                   arma::uword lda, const double* B, arma::uword ldb, double* C, arma::uword ldc);
// In float: each sum in float, one rounding per product and per sum (the
// bits of lib/nn's float gemm), twice the lanes per instruction.
void dense_product(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const float* A,
                   arma::uword lda, const float* B, arma::uword ldb, float* C, arma::uword ldc);

// The same products at a given level (at most this CPU's, or
// std::invalid_argument): for tests and benchmarks of each level's kernel.
void dense_product_at(IsaLevel level, bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k,
                      const double* A, arma::uword lda, const double* B, arma::uword ldb, double* C, arma::uword ldc);
void dense_product_at(IsaLevel level, bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k,
                      const float* A, arma::uword lda, const float* B, arma::uword ldb, float* C, arma::uword ldc);

}  // namespace potts
