// The gaussian_finite_size stage; its body, inputs, configuration and outputs: gaussian_finite_size_stage.h.
#include "stages/gaussian_sim/gaussian_finite_size_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("gaussian_finite_size",
                          "the Gaussian model at one size D: theory, exact moments, noise-averaged simulation", argc,
                          argv, potts::run_gaussian_finite_size);
}
