// The train_merge stage; its body, inputs, configuration and outputs: train_merge_stage.h.
#include "stages/train/train_merge_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("train_merge", "Merges the seeds of each trained model: mean ± s.e., stalls (figure 2a-c)",
                          argc, argv, potts::run_train_merge);
}
