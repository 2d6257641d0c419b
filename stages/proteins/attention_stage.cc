#include "stages/proteins/attention_stage.h"

#include <chrono>
#include <cstdio>
#include <limits>
#include <malloc.h>

#include "lib/attention_potts/attention_potts.h"
#include "lib/core/io.h"
#include "lib/proteins/msa.h"
#include "stages/proteins/pad_fit.h"

namespace potts {

using namespace proteins;

namespace {

// The fit's settings, as its configuration gives them.
struct AttentionRun {
  AttentionPottsSpec spec;
  AttentionPottsPenalty pen;
  AttentionPottsFitOptions fo;
  bool pinned = false;  // the pinned code's protocol given (eq. O1s keys)
  std::string fit_on;
};

AttentionRun read_run(Config& cfg) {
  AttentionRun r;
  r.spec.C = kGap;  // the 20 amino acids; the gap (state 20) is the pad
  r.spec.heads = arma::uword(cfg.integer("heads", 1, 4096));
  r.spec.head_dim = arma::uword(cfg.integer("head_dim", 1, 1024));
  r.spec.float_products = cfg.choice("products", {"double", "float"}) == "float";
  r.pen.lambda = cfg.number("lambda", 0.0, 1e6);
  r.fo.steps = long(cfg.integer("steps", 1, 10000000));
  r.fo.batch_size = arma::uword(cfg.integer("batch_size", 1, 1000000));
  r.fo.adamw.lr = cfg.number_open("lr", 0.0, 10.0);
  // The observation's pinned code (eq. O1s): optional, absent = eq. O1 with
  // fields and the epochs' last batches short.
  r.pinned = cfg.has("penalty") || cfg.has("fields") || cfg.has("full_batches");
  if (cfg.has("penalty")) r.pen.squared = cfg.choice("penalty", {"unsquared", "squared"}) == "squared";
  if (cfg.has("fields")) r.spec.fields = cfg.boolean("fields");
  if (cfg.has("full_batches")) r.fo.full_batches = cfg.boolean("full_batches");
  r.fit_on = cfg.choice("fit_on", {"all", "train"});
  cfg.finish();
  return r;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The model's settings and the optimiser's record in the summary.
void describe_run(const AttentionRun& r, const AttentionPottsFit& fit, const arma::vec& x, CouplingFitSummary& s) {
  const AttentionPottsSpec& spec = r.spec;
  s.model = "attention_potts";
  s.form = "softmax attention";
  s.description = "softmax attention, H = " + std::to_string(spec.heads) + ", d = " + std::to_string(spec.head_dim) +
                  ", V full, the gap a pad, penalty on W (the observation's protocol)";
  s.parameters = spec.parameter_count();
  s.optimiser = "adamw";
  nlohmann::json& d = s.details;
  d["heads"] = spec.heads;
  d["head_dim"] = spec.head_dim;
  d["lambda"] = r.pen.lambda;
  d["products"] = spec.float_products ? "float" : "double";
  if (r.pinned)
    d["protocol"] = {{"penalty", r.pen.squared ? "squared (eq. O1s)" : "unsquared (eq. O1)"},
                     {"fields", spec.fields},
                     {"full_batches", r.fo.full_batches}};
  d["adamw"] = {{"steps", r.fo.steps},   {"batch_size", r.fo.batch_size},
                {"lr", r.fo.adamw.lr},   {"betas", {r.fo.adamw.beta1, r.fo.adamw.beta2}},
                {"eps", r.fo.adamw.eps}, {"weight_decay", r.fo.adamw.weight_decay},
                {"epochs", fit.epochs}};
  d["attention_maps"] = {{"median_row_max", attention_potts_median_row_max(spec, x)},
                         {"uniform_weight", 1.0 / double(spec.L - 1)}};
}

}  // namespace

void run_proteins_attention(Stage& stage) {
  // Every step allocates nothing new, but the evaluations before and after
  // the fit do (tens of MB): keep freed blocks in the heap rather than
  // returning them to the system and faulting them in again. No value changes.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  AttentionRun r = read_run(stage.config());
  const PadFitData d = read_pad_fit_data(stage, r.fit_on);
  r.spec.L = d.L;
  r.spec.check();
  r.pen.family_size = d.fit.n_rows;

  const auto t0 = std::chrono::steady_clock::now();
  CsvTable curves({"step", "batch_loss"});
  r.fo.on_step = [&](long t, double loss) {
    curves.row({double(t), loss});
    if (t % 100 == 0 || t == r.fo.steps)
      std::fprintf(stderr, "proteins_attention H = %llu, d = %llu: step %ld/%ld  batch loss %.5f  (%.0f s)\n",
                   (unsigned long long)r.spec.heads, (unsigned long long)r.spec.head_dim, t, r.fo.steps, loss,
                   seconds_since(t0));
  };
  const AttentionPottsFit fit = fit_attention_potts(r.spec, d.fit, r.pen, r.fo, stage.seed());
  curves.save(stage.output("curves.csv"));
  AttentionPottsWorkspace work;
  CouplingFitSummary s = pad_fit_summary(d, attention_potts_mean_loss(r.spec, fit.x, d.train),
                                         attention_potts_mean_loss(r.spec, fit.x, d.test));
  s.objective = attention_potts_loss(r.spec, fit.x, d.fit, r.pen, nullptr, work);  // eq. O1, one batch of all
  stage.timings()["seconds_per_step"] = seconds_since(t0) / double(r.fo.steps);
  describe_run(r, fit, fit.x, s);
  write_pad_fit(stage, fit.x, attention_potts_block_norms(r.spec, fit.x), s);
  stage.timings()["fit_seconds"] = seconds_since(t0);
}

}  // namespace potts
