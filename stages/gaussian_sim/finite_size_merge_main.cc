// The gaussian_finite_size_merge stage; its body, inputs, configuration and outputs:
// gaussian_finite_size_merge_stage.h.
#include "stages/gaussian_sim/gaussian_finite_size_merge_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("gaussian_finite_size_merge",
                          "finite-size extrapolation of the Gaussian model's simulation against the replica theory",
                          argc, argv, potts::run_gaussian_finite_size_merge);
}
