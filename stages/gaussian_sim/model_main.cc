// The gaussian_model stage; its body, inputs, configuration and outputs: gaussian_model_stage.h.
#include "stages/gaussian_sim/gaussian_model_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("gaussian_model", "Gaussian model of a masked position (paper/spec.md §4)", argc, argv,
                          potts::run_gaussian_model);
}
