// The proteins_panel stage; its body, inputs, configuration and outputs: panel_stage.h.
#include "stages/proteins/panel_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_panel", "The panel's families side by side (top-L per predictor, N_eff)", argc,
                          argv, potts::run_proteins_panel);
}
