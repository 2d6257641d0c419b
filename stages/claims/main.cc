// The claims stage; its body, inputs, configuration and outputs: claims_stage.h.
#include "stages/claims/claims_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("claims", "Judges the paper's claims on each reading of the data regime", argc, argv,
                          potts::run_claims);
}
