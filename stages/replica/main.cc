// The replica stage; its body, inputs, configuration and outputs: replica_stage.h.
#include "stages/replica/replica_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("replica", "replica-symmetric theory of ridge regression on the Gaussian model", argc, argv,
                          potts::run_replica);
}
