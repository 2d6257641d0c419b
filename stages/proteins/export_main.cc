// The proteins_export stage; its body, inputs, configuration and outputs: export_stage.h.
#include "stages/proteins/export_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_export", "Write each predictor's scores as .mat and CASP RR files", argc, argv,
                          potts::run_proteins_export);
}
