#include "stages/proteins/couplings_stage.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <malloc.h>
#include <string>
#include <vector>

#include "lib/core/io.h"
#include "lib/couplings/coupling_fits.h"
#include "lib/couplings/coupling_models.h"
#include "lib/proteins/contacts.h"
#include "lib/proteins/msa.h"
#include "stages/proteins/family_stage.h"
#include "stages/proteins/fit_summary.h"

namespace potts {

using namespace proteins;

namespace {

// One run's settings, as its configuration gives them.
struct CouplingRun {
  CouplingSpec spec;
  CouplingPenalty pen;
  CouplingInit init;
  int restarts = 1;
  std::string weighting, fit_on, optimiser;
  LbfgsOptions lo;
  SgdOptions so;
  bool lbfgs() const { return optimiser != "sgd"; }
};

CouplingRun read_run(Config& cfg) {
  CouplingRun r;
  CouplingSpec& spec = r.spec;
  spec.form = coupling_form_from_string(cfg.choice("form", {"full", "factored", "softmax"}));
  if (spec.form != CouplingForm::kFull) {
    spec.heads = arma::uword(cfg.integer("heads", 1, 4096));
    spec.value_rank = arma::uword(cfg.integer("value_rank", 0, 64));
    spec.symmetrise = cfg.boolean("symmetrise");
  }
  if (spec.form == CouplingForm::kSoftmax) spec.head_dim = arma::uword(cfg.integer("head_dim", 1, 1024));
  spec.fields = cfg.boolean("fields");
  r.weighting = cfg.choice("weights", {"identity", "none"});
  r.fit_on = cfg.choice("fit_on", {"all", "train"});
  r.pen.lambda_h = cfg.number("lambda_h", 0.0, 1e6);
  r.pen.lambda_c = cfg.number("lambda_c", 0.0, 1e6);
  r.pen.lambda_w = cfg.has("lambda_w") ? cfg.number("lambda_w", 0.0, 1e6) : 0.0;
  if (spec.form != CouplingForm::kFull) {
    r.init.std_couplings = cfg.number("init_std_couplings", 0.0, 10.0);
    r.init.std_values = cfg.number("init_std_values", 0.0, 10.0);
    r.restarts = int(cfg.integer("restarts", 1, 100));
  }
  if (spec.fields) r.init.fields_from_profile = cfg.boolean("fields_from_profile");
  // The optimiser: full-batch L-BFGS ("lbfgs": a strong-Wolfe line search;
  // "lean-lbfgs": every vector allocated once, for the full model's millions
  // of parameters), or mini-batch SGD as lib/train runs the masked-language-
  // model training (one restart).
  r.optimiser = cfg.choice("optimiser", {"lbfgs", "lean-lbfgs", "sgd"});
  if (r.lbfgs()) {
    r.lo = read_lbfgs_options(cfg);
  } else {
    r.so.epochs = int(cfg.integer("epochs", 1, 1000000));
    r.so.batch_size = arma::uword(cfg.integer("batch_size", 1, 1000000));
    r.so.lr0 = cfg.number_open("lr0", 0.0, 100.0);
    if (r.restarts != 1)
      throw StageError(cfg.origin() + ": 'restarts': SGD runs one restart (got " + std::to_string(r.restarts) + ")");
  }
  cfg.finish();
  return r;
}

// The family's sequences: the training and test sets, and the ones the fit
// sees with their weights.
struct FitData {
  arma::uword L = 0;
  arma::imat train, test, seqs;
  arma::vec weights;
};

FitData read_fit_data(Stage& stage, const CouplingRun& r) {
  const FamilyData f = read_family(stage);
  const std::string test_h5 = stage.input("family/test.h5");
  const arma::vec test_w = arma::vectorise(h5_read_matrix(test_h5, "weights"));
  FitData d;
  d.L = f.train.L;
  d.train = nn::to_imat(f.train);
  d.test = nn::to_imat(f.test);
  if (test_w.n_elem != d.test.n_rows || f.train_weights.n_elem != d.train.n_rows)
    throw StageError(test_h5 +
                     ": 'weights' has one entry per sequence in the prepare stage's outputs; the counts differ");
  d.seqs = r.fit_on == "all" ? arma::imat(arma::join_cols(d.train, d.test)) : d.train;
  d.weights = r.fit_on == "all" ? arma::vec(arma::join_cols(f.train_weights, test_w)) : f.train_weights;
  if (r.weighting == "none") d.weights.ones();
  return d;
}

// The run's fitter (coupling_fits.h), with progress on stderr; one table of
// the objective per restart in `curves`.
CouplingFit fit_run(CouplingRun& r, const FitData& d, std::uint64_t seed, std::vector<CsvTable>& curves) {
  const CouplingSpec& spec = r.spec;
  if (!r.lbfgs()) {
    curves.emplace_back(std::vector<std::string>{"epoch", "objective"});
    r.so.on_epoch = [&](int epoch, double fx) {
      std::fprintf(stderr, "proteins_couplings %s: SGD epoch %d/%d  objective %.6f\n", spec.describe().c_str(), epoch,
                   r.so.epochs, fx);
      curves.back().row({double(epoch), fx});
    };
    return fit_couplings_sgd(spec, d.seqs, d.weights, r.pen, r.init, r.so, seed);
  }
  r.lo.on_iteration = [&](int it, double fx, double gnorm) {
    if (it % 10 == 0)
      std::fprintf(stderr, "proteins_couplings %s: restart %zu, iteration %d/%d  objective %.6f  |grad| %.3g\n",
                   spec.describe().c_str(), curves.size() - 1, it, r.lo.max_iterations, fx, gnorm);
    curves.back().row({double(it), fx, gnorm});
  };
  return fit_couplings(
      spec, d.seqs, d.weights, r.pen, r.init, r.lo, seed, r.restarts,
      [&](int) {
        curves.emplace_back(std::vector<std::string>{"iteration", "objective", "gradient_norm"});
      },
      r.optimiser == "lean-lbfgs" ? LbfgsVariant::kLean : LbfgsVariant::kStrongWolfe);
}

// summary.json: the run's settings, its losses, and each restart's end.
nlohmann::json run_summary(const CouplingRun& r, const FitData& d, const CouplingFit& fit, double train_loss,
                           double test_loss, int* evaluations) {
  const CouplingSpec& spec = r.spec;
  *evaluations = 0;
  nlohmann::json rs = nlohmann::json::array();
  for (const auto& x : fit.restarts) {
    *evaluations += x.evaluations;
    rs.push_back({{"objective", x.objective},
                  {"train_loss_weighted", x.train_loss},
                  {"iterations", x.iterations},
                  {"evaluations", x.evaluations},
                  {"status", to_string(x.status)}});
  }
  CouplingFitSummary s;
  s.model = "couplings";
  s.form = to_string(spec.form);
  s.description = spec.describe();
  s.L = spec.L;
  s.q = kStates;
  s.parameters = spec.parameter_count();
  s.weights = r.weighting;
  s.fit_on = r.fit_on;
  s.fit_sequences = d.seqs.n_rows;
  s.train_loss = train_loss;
  s.test_loss = test_loss;
  s.objective = fit.objective;
  s.optimiser = r.optimiser;
  s.scores = "APC-corrected Frobenius norm of the zero-sum-gauge coupling blocks, gap excluded";
  nlohmann::json& x = s.details;
  x["heads"] = spec.form == CouplingForm::kFull ? nlohmann::json(nullptr) : nlohmann::json(spec.heads);
  x["head_dim"] = spec.form == CouplingForm::kSoftmax ? nlohmann::json(spec.head_dim) : nlohmann::json(nullptr);
  x["value_rank"] = spec.value_rank;
  x["fields"] = spec.fields;
  x["symmetrise"] = spec.symmetrise;
  x["fit_n_eff"] = arma::accu(d.weights);
  x["lambda_h"] = r.pen.lambda_h;
  x["lambda_c"] = r.pen.lambda_c;
  if (r.pen.lambda_w != 0.0) x["lambda_w"] = r.pen.lambda_w;
  if (r.lbfgs())
    x["lbfgs"] = {{"memory", r.lo.memory},
                  {"max_iterations", r.lo.max_iterations},
                  {"gradient_tolerance", r.lo.gradient_tolerance},
                  {"relative_decrease", r.lo.relative_decrease}};
  else
    x["sgd"] = {{"epochs", r.so.epochs}, {"batch_size", r.so.batch_size}, {"lr0", r.so.lr0}, {"schedule", "cosine"}};
  if (spec.form == CouplingForm::kSoftmax) {
    const AttentionSummary a = attention_summary(spec, fit.x);
    x["attention"] = {
        {"query_key_rms", a.query_key_rms}, {"largest_weight", a.largest_weight}, {"uniform_weight", a.uniform_weight}};
  }
  x["restarts"] = rs;
  x["best_restart"] = fit.best_restart;
  x["evaluations"] = *evaluations;
  return s.to_json();
}

}  // namespace

void run_proteins_couplings(Stage& stage) {
  // Every objective evaluation allocates and frees buffers of 20-90 MB (the
  // couplings W, their gradient, the logits; L-BFGS's vectors). glibc serves
  // blocks over 32 MB by mmap and returns them on free, so each evaluation
  // faulted in and cleared its pages afresh: a third of the PLM fit's time.
  // Served from the heap and kept there on free, the blocks are reused. Only
  // where memory comes from changes; no value does.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  CouplingRun run = read_run(stage.config());
  const FitData d = read_fit_data(stage, run);
  run.spec.L = d.L;
  run.spec.C = kStates;  // checked with the rest of the spec by the fit (coupling_fits.h)

  std::vector<CsvTable> curves;
  const auto t0 = std::chrono::steady_clock::now();
  const CouplingFit fit = fit_run(run, d, stage.seed(), curves);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Losses with unit weights (eq. 3), on the training and the test
  // sequences, whichever the fit saw.
  const arma::vec ones_train(d.train.n_rows, arma::fill::ones), ones_test(d.test.n_rows, arma::fill::ones);
  const double train_loss = weighted_pl_data_term(fit.W, fit.h, d.train, ones_train, nullptr, nullptr);
  const double test_loss = weighted_pl_data_term(fit.W, fit.h, d.test, ones_test, nullptr, nullptr);
  if (!std::isfinite(train_loss) || !std::isfinite(test_loss))
    throw StageError("the coupling fit diverged (non-finite loss); no result is written");
  const arma::mat scores = apc(frobenius_scores(fit.W, kStates));
  if (!scores.is_finite()) throw StageError("the contact scores are not finite; no result is written");

  H5Writer params;
  params.matrix("x", arma::mat(fit.x));
  params.matrix("h", fit.h);
  params.save(stage.output("params.h5"));
  H5Writer h5;
  h5.matrix("scores", scores);
  h5.save(stage.output("scores.h5"));
  curves.at(std::size_t(fit.best_restart)).save(stage.output("curves.csv"));
  int evaluations = 0;
  stage.write_summary(run_summary(run, d, fit, train_loss, test_loss, &evaluations));
  stage.timings()["fit_seconds"] = seconds;
  stage.timings()["seconds_per_evaluation"] = seconds / double(std::max(evaluations, 1));
}

}  // namespace potts
