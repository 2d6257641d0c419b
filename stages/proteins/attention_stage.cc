#include "stages/proteins/attention_stage.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <malloc.h>

#include "lib/core/io.h"
#include "lib/attention_potts/attention_potts.h"
#include "lib/plm/coupling_pad.h"
#include "lib/proteins/contacts.h"
#include "lib/proteins/msa.h"
#include "stages/proteins/family_stage.h"

namespace potts {

using namespace proteins;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void run_proteins_attention(Stage& st) {
  // Every step allocates nothing new, but the evaluations before and after
  // the fit do (tens of MB): keep freed blocks in the heap rather than
  // returning them to the system and faulting them in again. No value changes.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  Config& cfg = st.config();
  const std::string model = cfg.choice("model", {"attention", "plm"});
  const arma::uword A = kGap;  // the 20 amino acids; the gap (state 20) is the pad
  AttentionPottsSpec spec;
  AttentionPottsPenalty pen;
  AttentionPottsFitOptions fo;
  PadPlmPenalty plm_pen;
  LbfgsOptions lo;
  bool pinned = false;
  if (model == "attention") {
    spec.A = A;
    spec.heads = arma::uword(cfg.integer("heads", 1, 4096));
    spec.head_dim = arma::uword(cfg.integer("head_dim", 1, 1024));
    spec.float_products = cfg.choice("products", {"double", "float"}) == "float";
    pen.lambda = cfg.number("lambda", 0.0, 1e6);
    fo.steps = long(cfg.integer("steps", 1, 10000000));
    fo.batch_size = arma::uword(cfg.integer("batch_size", 1, 1000000));
    fo.adamw.lr = cfg.number_open("lr", 0.0, 10.0);
    // The observation's pinned code (eq. O1s): optional, absent = eq. O1
    // with fields and the epochs' last batches short.
    pinned = cfg.has("penalty") || cfg.has("fields") || cfg.has("full_batches");
    if (cfg.has("penalty")) pen.squared = cfg.choice("penalty", {"unsquared", "squared"}) == "squared";
    if (cfg.has("fields")) spec.fields = cfg.boolean("fields");
    if (cfg.has("full_batches")) fo.full_batches = cfg.boolean("full_batches");
  } else {
    plm_pen.lambda_h = cfg.number("lambda_h", 0.0, 1e6);
    plm_pen.lambda_c = cfg.number("lambda_c", 0.0, 1e6);
    lo.max_iterations = int(cfg.integer("max_iterations", 1, 1000000));
    lo.gradient_tolerance = cfg.number_open("gradient_tolerance", 0.0, 1.0);
    lo.relative_decrease = cfg.number("relative_decrease", 0.0, 1.0);
    lo.memory = int(cfg.integer("lbfgs_memory", 1, 100));
  }
  const std::string fit_on = cfg.choice("fit_on", {"all", "train"});
  cfg.finish();

  const FamilyData f = read_family(st);
  const arma::imat train = nn::to_imat(f.train), test = nn::to_imat(f.test);
  const arma::imat fit_seqs = fit_on == "all" ? arma::imat(arma::join_cols(train, test)) : train;
  const arma::uword L = f.train.L;
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json s;
  arma::vec x;
  arma::mat norms;
  double train_loss = 0.0, test_loss = 0.0;
  if (model == "attention") {
    spec.L = L;
    spec.check();
    pen.family_size = fit_seqs.n_rows;
    CsvTable curves({"step", "batch_loss"});
    fo.on_step = [&](long t, double loss) {
      curves.row({double(t), loss});
      if (t % 100 == 0 || t == fo.steps)
        std::fprintf(stderr, "proteins_attention H = %llu, d = %llu: step %ld/%ld  batch loss %.5f  (%.0f s)\n",
                     (unsigned long long)spec.heads, (unsigned long long)spec.head_dim, t, fo.steps, loss,
                     seconds_since(t0));
    };
    const AttentionPottsFit fit = fit_attention_potts(spec, fit_seqs, pen, fo, st.seed());
    x = fit.x;
    curves.save(st.output("curves.csv"));
    AttentionPottsWorkspace ws;
    s["objective"] = attention_potts_loss(spec, x, fit_seqs, pen, nullptr, ws);  // eq. O1, all fit sequences as one batch
    train_loss = attention_potts_mean_loss(spec, x, train);
    test_loss = attention_potts_mean_loss(spec, x, test);
    norms = attention_potts_block_norms(spec, x);
    s["form"] = "softmax attention";
    s["description"] = "softmax attention, H = " + std::to_string(spec.heads) + ", d = " +
                       std::to_string(spec.head_dim) + ", V full, the gap a pad, penalty on W (the observation's protocol)";
    s["heads"] = spec.heads;
    s["head_dim"] = spec.head_dim;
    s["parameters"] = spec.parameter_count();
    s["lambda"] = pen.lambda;
    s["products"] = spec.float_products ? "float" : "double";
    if (pinned)
      s["protocol"] = {{"penalty", pen.squared ? "squared (eq. O1s)" : "unsquared (eq. O1)"},
                       {"fields", spec.fields},
                       {"full_batches", fo.full_batches}};
    s["optimiser"] = "adamw";
    s["adamw"] = {{"steps", fo.steps},
                  {"batch_size", fo.batch_size},
                  {"lr", fo.adamw.lr},
                  {"betas", {fo.adamw.beta1, fo.adamw.beta2}},
                  {"eps", fo.adamw.eps},
                  {"weight_decay", fo.adamw.weight_decay},
                  {"epochs", fit.epochs}};
    s["attention_maps"] = {{"median_row_max", attention_potts_median_row_max(spec, x)},
                           {"uniform_weight", 1.0 / double(L - 1)}};
    st.timings()["seconds_per_step"] = seconds_since(t0) / double(fo.steps);
  } else {
    CsvTable curves({"iteration", "objective", "gradient_norm"});
    lo.on_iteration = [&](int it, double fx, double gnorm) {
      if (it % 10 == 0)
        std::fprintf(stderr, "proteins_attention PLM, the gap a pad: iteration %d/%d  objective %.6f  |grad| %.3g\n", it,
                     lo.max_iterations, fx, gnorm);
      curves.row({double(it), fx, gnorm});
    };
    const LbfgsResult r = fit_pad_plm(L, A, fit_seqs, plm_pen, lo);
    x = r.x;
    curves.save(st.output("curves.csv"));
    s["objective"] = r.value;
    train_loss = pad_plm_mean_loss(L, A, x, train);
    test_loss = pad_plm_mean_loss(L, A, x, test);
    norms = pad_plm_block_norms(L, A, x);
    s["form"] = "full";
    s["description"] = "full, fields, no weights, the gap a pad";
    s["parameters"] = pad_plm_parameter_count(L, A);
    s["lambda_h"] = plm_pen.lambda_h;
    s["lambda_c"] = plm_pen.lambda_c;
    s["optimiser"] = "lean-lbfgs";
    s["lbfgs"] = {{"memory", lo.memory},
                  {"max_iterations", lo.max_iterations},
                  {"gradient_tolerance", lo.gradient_tolerance},
                  {"relative_decrease", lo.relative_decrease},
                  {"iterations", r.iterations},
                  {"evaluations", r.evaluations},
                  {"status", to_string(r.status)}};
  }
  const double seconds = seconds_since(t0);
  if (!std::isfinite(train_loss) || !std::isfinite(test_loss) || !x.is_finite())
    throw StageError("the fit diverged (non-finite loss or parameters); no result is written");
  const arma::mat scores = apc(norms);
  if (!scores.is_finite()) throw StageError("the contact scores are not finite; no result is written");

  H5Writer params;
  params.matrix("x", arma::mat(x));
  params.save(st.output("params.h5"));
  H5Writer h5;
  h5.matrix("scores", scores);
  h5.save(st.output("scores.h5"));

  // "couplings": the score stage reads the objective and copies the fit's
  // description, as for the couplings stage's fits.
  s["model"] = "couplings";
  s["L"] = L;
  s["q"] = A;
  s["gap"] = "pad";
  s["weights"] = "none";
  s["fit_on"] = fit_on;
  s["fit_sequences"] = fit_seqs.n_rows;
  s["train_loss"] = train_loss;
  s["test_loss"] = test_loss;
  s["test_loss_held_out"] = fit_on == "train";
  s["loss"] = "mean cross-entropy per non-gap target, no penalty";
  s["scores"] = "APC-corrected Frobenius norm of the coupling blocks over the 20 amino acids (the gap a pad)";
  st.write_summary(s);
  st.timings()["fit_seconds"] = seconds;
}

}  // namespace potts
