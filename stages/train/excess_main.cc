// The factored_excess stage; its body, inputs, configuration and outputs: factored_excess_stage.h.
#include "stages/train/factored_excess_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("factored_excess", "finite-sample excess test loss of a factored-attention fit (sandwich)",
                          argc, argv, potts::run_factored_excess);
}
