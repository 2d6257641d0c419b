// The potts_alpha_fit stage; its body, inputs, configuration and outputs: potts_alpha_fit_stage.h.
#include "stages/potts_alpha/potts_alpha_fit_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("potts_alpha_fit", "factored attention by L-BFGS on random training subsets, one chunk", argc,
                          argv, potts::run_potts_alpha_fit);
}
