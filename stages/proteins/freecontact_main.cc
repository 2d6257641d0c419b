// The proteins_freecontact stage; its body, inputs, configuration and outputs: freecontact_stage.h.
#include "stages/proteins/freecontact_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_freecontact", "Contact baselines (EVfold-mfDCA, PSICOV) from Debian's freecontact",
                          argc, argv, potts::run_proteins_freecontact);
}
