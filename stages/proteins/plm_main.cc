// The proteins_plm stage; its body, inputs, configuration and outputs: plm_stage.h.
#include "stages/proteins/plm_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_plm",
                          "The pseudo-likelihood baseline (plmDCA's model) fitted to a protein family's training "
                          "sequences by L-BFGS, and its contact scores",
                          argc, argv, potts::run_proteins_plm);
}
