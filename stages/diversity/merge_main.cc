// The diversity_merge stage; its body, inputs, configuration and outputs: diversity_merge_stage.h.
#include "stages/diversity/diversity_merge_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("diversity_merge", "tables of the diversity study", argc, argv, potts::run_diversity_merge);
}
