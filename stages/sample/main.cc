// Sample stage (paper/spec.md §1): the generalised Potts model (J, U, beta),
// one Gibbs chain, beta calibrated to a target Hamming distance (or fixed),
// training and test sets. See stages/sample/sample_stage.h for the outputs.
#include "stages/sample/sample_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("sample", "Generalised Potts model and its Gibbs-sampled data sets (paper/spec.md §1)", argc,
                          argv, potts::run_sample);
}
