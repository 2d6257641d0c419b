// The gaussian_merge stage; its body, inputs, configuration and outputs: gaussian_merge_stage.h.
#include "stages/gaussian_sim/gaussian_merge_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("gaussian_merge", "merge the simulation chunks of the Gaussian model", argc, argv,
                          potts::run_gaussian_merge);
}
