// The potts_alpha_merge stage; its body, inputs, configuration and outputs: potts_alpha_merge_stage.h.
#include "stages/potts_alpha/potts_alpha_merge_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("potts_alpha_merge", "merge of the sample-complexity chunks", argc, argv,
                          potts::run_potts_alpha_merge);
}
