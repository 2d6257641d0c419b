// The proteins_plm_pad stage; its body, inputs, configuration and outputs: plm_pad_stage.h.
#include "stages/proteins/plm_pad_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_plm_pad",
                          "The pseudo-likelihood model of a protein family on the observation's conventions (the gap "
                          "a pad, no sequence weights), fitted by L-BFGS, and its contact scores",
                          argc, argv, potts::run_proteins_plm_pad);
}
