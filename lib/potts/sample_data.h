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

// Checks that J and U are square and that both sets of sequences have L
// columns.
SampleData read_sample_data(const std::string& model_h5, const std::string& train_h5,
                            const std::string& test_h5);

}  // namespace potts
