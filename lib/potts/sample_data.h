// Reading the sample stage's outputs (model.h5, train.h5, test.h5), the one
// place every downstream stage gets them from. Errors name the file and the
// dataset.
//
// Tested by //stages/train:stage_bytes_test (through the stages that read the sample).
#pragma once
#include <string>

#include <armadillo>

#include "lib/potts/model.h"

namespace potts {

struct SampleData {
  PottsModel truth;  // couplings_J, colour_similarity_U, beta
  arma::imat train;  // M_train x L
  arma::imat test;   // M_test x L
};

// Checks that J (L x L) and U (C x C) are square and finite with L, C >= 2,
// that beta is a finite scalar in [0, 1e6], and that both sets of sequences
// are non-empty with L columns and colours in 0..C-1.
SampleData read_sample_data(const std::string& model_h5, const std::string& train_h5, const std::string& test_h5);

}  // namespace potts
