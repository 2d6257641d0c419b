// The potts_alpha_plan stage; its body, inputs, configuration and outputs: potts_alpha_plan_stage.h.
#include "stages/potts_alpha/potts_alpha_plan_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("potts_alpha_plan", "plan of the sample-complexity experiment on Potts data", argc, argv,
                          potts::run_potts_alpha_plan);
}
