// The proteins_score stage; its body, inputs, configuration and outputs: score_stage.h.
#include "stages/proteins/score_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_score", "Contact precision of every predictor against the structure", argc, argv,
                          potts::run_proteins_score);
}
