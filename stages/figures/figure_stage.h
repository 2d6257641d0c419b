// The figures stage: one figure of the paper per Bazel action
// (stages/figures/main.cc is a thin wrapper around run_figures).
//
// Reads the upstream stages' outputs (CSV tables, HDF5 matrices, summaries),
// writes the numbers a figure shows into a plain data file (<name>.dat,
// blocks separated by two blank lines, one per series or heat map; gnuplot's
// `index`), and runs gnuplot on the settings all figures share (input
// common/*.gp, stages/figures/scripts/common.gp) and then on the figure's
// script (a label of its own: editing it reruns this figure only) twice, for
// <name>.png (pngcairo) and <name>.pdf (pdfcairo). summary.json records the caption and every number
// derived here (least-squares scales, e_rec of each map, means per point).
//
// Kinds (config "figure"):
//  * "xy": series of (x, y[, error]) read from CSV columns; a series either
//    takes an error column as given or averages the rows that share an x
//    (mean and standard error over seeds/realisations). A series may plot
//    y minus another column of the same rows ("y_minus", e.g. ε - ε*,
//    subtracted before averaging). Optional horizontal
//    reference (e.g. ε*), subtraction of a constant (ε_g - σ²), and a power
//    law reference line (c·x^p). A series with no points (an "optional"
//    one, whose input may also be absent) gets no key entry.
//  * "heatmaps": the couplings J and attention maps, each map A shown as c·A
//    with c = argmin Σ_{i≠j} (J_ij - c A_ij)² (the scale e_rec uses, paper/spec.md §2),
//    all on one symmetric colour scale.
//
// Captions: {{stage.path[:fmt]}} placeholders filled from the upstream
// summaries (lib/provenance/literate.h), plus {{stage.path:count}} and
// {{stage.path:list}}, an array's length and its elements. The summary names
// each xy series by its config key without the ordering prefix ("1_theory":
// "theory"), so the paper quotes series.theory.last.y.
//
// Tested through the quick figures' data files and summaries, whose bytes
// //tests/determinism:cross_cpu_test compares with committed hashes; the
// gnuplot helpers by //lib/figures:gnuplot_test.
#pragma once
#include "stages/runtime/stage.h"

namespace potts::figures {

// The stage body: reads the config and inputs of one figure, writes
// <name>.dat, <name>.png, <name>.pdf and summary.json.
void run_figures(Stage& stage);

}  // namespace potts::figures
