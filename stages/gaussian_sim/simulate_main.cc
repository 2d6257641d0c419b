// The gaussian_simulate stage; its body, inputs, configuration and outputs: gaussian_simulate_stage.h.
#include "stages/gaussian_sim/gaussian_simulate_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("gaussian_simulate", "ridge regression on the Gaussian model, one chunk of the alpha grid",
                          argc, argv, potts::run_gaussian_simulate);
}
