// The perturb stage; its body, inputs, configuration and outputs: perturb_stage.h.
#include "stages/perturb/perturb_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("perturb", "Perturbed attention at one value of a (figure 2d)", argc, argv,
                          potts::run_perturb);
}
