// The proteins_a3m stage; its body, inputs, configuration and outputs: a3m_stage.h.
#include "stages/proteins/a3m_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_a3m", "Write an A3M alignment as the A2M it stands for", argc, argv,
                          potts::run_proteins_a3m);
}
