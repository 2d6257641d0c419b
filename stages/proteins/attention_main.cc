// The proteins_attention stage; its body, inputs, configuration and outputs: attention_stage.h.
#include "stages/proteins/attention_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("proteins_attention",
                          "Factored attention fitted to a protein family as the observation's code fits it (softmax "
                          "attention over positions, the gap a pad, the penalty on W, AdamW on mini-batches), and its "
                          "contact scores",
                          argc, argv, potts::run_proteins_attention);
}
