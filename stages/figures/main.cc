// Figures stage: one figure of the paper per Bazel action (data file, then
// gnuplot to PNG and PDF). See stages/figures/figure_stage.h.
#include "stages/figures/figure_stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("figures", "One figure of the paper: data file, then gnuplot to PNG and PDF.", argc, argv,
                          potts::figures::run_figures);
}
