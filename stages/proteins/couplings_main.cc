// The proteins_couplings stage; its body, inputs, configuration and outputs: couplings_stage.h.
#include "stages/proteins/couplings_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_couplings",
                          "A coupling model of a protein family (full pseudo-likelihood, factored attention with "
                          "H heads, or softmax attention) fitted by weighted pseudo-likelihood, and its contact scores",
                          argc, argv, potts::run_proteins_couplings);
}
