// The train stage; its body, inputs, configuration and outputs: train_stage.h.
#include "stages/train/train_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("train",
                          "Masked language modelling of Potts sequences (factored attention or vanilla transformer)",
                          argc, argv, potts::run_train);
}
