// What the proteins stages share (paper/spec.md §9): finding a family's
// input files and reading the proteins_prepare stage's outputs.
//
// Tested through //stages/proteins:proteins_quick_test.
#pragma once
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <armadillo>

#include "lib/nn/mlm_model.h"
#include "stages/runtime/stage.h"

namespace potts::proteins {

// The path of the one input under "<key>/"; "" if there is none and it is
// optional; an error if it is required and missing, or given twice.
std::string family_input(const Stage& stage, const std::string& key, bool required);

// The prepare stage's outputs, passed to a stage under the key "family".
struct FamilyData {
  nn::SequenceSet train, test;
  arma::vec train_weights;
  std::vector<int> residues;               // per column: the query's residue number
  std::string query;                       // the query's letters per column
  std::set<std::pair<int, int>> contacts;  // residue numbers, i < j (empty without a structure)
  bool has_structure = false;
};
FamilyData read_family(const Stage& stage);

}  // namespace potts::proteins
