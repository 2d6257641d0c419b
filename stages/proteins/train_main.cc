// The proteins_train stage; its body, inputs, configuration and outputs: train_stage.h.
#include "stages/proteins/train_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_train",
                          "Masked language modelling on a protein family (factored attention, vanilla "
                          "transformer or pseudo-likelihood model) and its contact scores",
                          argc, argv, potts::run_proteins_train);
}
