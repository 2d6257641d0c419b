#include "stages/proteins/plm_pad_stage.h"

#include <chrono>
#include <cstdio>
#include <limits>
#include <malloc.h>

#include "lib/core/io.h"
#include "lib/plm/coupling_pad.h"
#include "lib/proteins/msa.h"
#include "stages/proteins/pad_fit.h"

namespace potts {

using namespace proteins;

void run_proteins_plm_pad(Stage& stage) {
  // The objective's evaluations allocate and free buffers of tens of MB:
  // keep freed blocks in the heap rather than returning them to the system
  // and faulting them in again. No value changes.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  Config& cfg = stage.config();
  PadPlmPenalty pen;
  pen.lambda_h = cfg.number("lambda_h", 0.0, 1e6);
  pen.lambda_c = cfg.number("lambda_c", 0.0, 1e6);
  LbfgsOptions lo = read_lbfgs_options(cfg);
  const std::string fit_on = cfg.choice("fit_on", {"all", "train"});
  cfg.finish();
  const PadFitData d = read_pad_fit_data(stage, fit_on);

  const arma::uword L = d.L, A = kGap;  // the 20 amino acids; the gap (state 20) is the pad
  const auto t0 = std::chrono::steady_clock::now();
  CsvTable curves({"iteration", "objective", "gradient_norm"});
  lo.on_iteration = [&](int it, double fx, double gnorm) {
    if (it % 10 == 0)
      std::fprintf(stderr, "proteins_plm_pad: iteration %d/%d  objective %.6f  |grad| %.3g\n", it, lo.max_iterations,
                   fx, gnorm);
    curves.row({double(it), fx, gnorm});
  };
  const LbfgsResult r = fit_pad_plm(L, A, d.fit, pen, lo);
  curves.save(stage.output("curves.csv"));

  CouplingFitSummary s =
      pad_fit_summary(d, pad_plm_mean_loss(L, A, r.x, d.train), pad_plm_mean_loss(L, A, r.x, d.test));
  s.model = "plm_pad";
  s.form = "full";
  s.description = "full, fields, no weights, the gap a pad";
  s.parameters = pad_plm_parameter_count(L, A);
  s.objective = r.value;
  s.optimiser = "lean-lbfgs";
  s.details["lambda_h"] = pen.lambda_h;
  s.details["lambda_c"] = pen.lambda_c;
  s.details["lbfgs"] = {{"memory", lo.memory},
                        {"max_iterations", lo.max_iterations},
                        {"gradient_tolerance", lo.gradient_tolerance},
                        {"relative_decrease", lo.relative_decrease},
                        {"iterations", r.iterations},
                        {"evaluations", r.evaluations},
                        {"status", to_string(r.status)}};
  write_pad_fit(stage, r.x, pad_plm_block_norms(L, A, r.x), s);
  stage.timings()["fit_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace potts
