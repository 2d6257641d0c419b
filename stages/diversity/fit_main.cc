// The diversity_fit stage; its body, inputs, configuration and outputs: diversity_fit_stage.h.
#include "stages/diversity/diversity_fit_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("diversity_fit", "recovery of J by factored attention and by the full pseudo-likelihood",
                          argc, argv, potts::run_diversity_fit);
}
