// The perturb_merge stage; its body, inputs, configuration and outputs: perturb_merge_stage.h.
#include "stages/perturb/perturb_merge_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("perturb_merge", "Merges the perturbation sweep into a table and a summary (figure 2d)", argc,
                          argv, potts::run_perturb_merge);
}
