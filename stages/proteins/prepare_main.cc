// The proteins_prepare stage; its body, inputs, configuration and outputs: prepare_stage.h.
#include "stages/proteins/prepare_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_prepare",
                          "Read a protein family's alignment (and structure): columns, weights, split, contacts", argc,
                          argv, potts::run_proteins_prepare);
}
