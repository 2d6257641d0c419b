#include "stages/proteins/couplings_stage.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <malloc.h>
#include <vector>

#include "lib/core/io.h"
#include "lib/estimators/coupling_fits.h"
#include "lib/estimators/coupling_models.h"
#include "lib/proteins/contacts.h"
#include "lib/proteins/msa.h"
#include "stages/proteins/family_stage.h"

namespace potts {

using namespace proteins;

void run_proteins_couplings(Stage& st) {
  // Every objective evaluation allocates and frees buffers of 20-90 MB (the
  // couplings W, their gradient, the logits; L-BFGS's vectors). glibc serves
  // blocks over 32 MB by mmap and returns them on free, so each evaluation
  // faulted in and cleared its pages afresh: a third of the PLM fit's time.
  // Served from the heap and kept there on free, the blocks are reused. Only
  // where memory comes from changes; no value does.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  Config& cfg = st.config();
  CouplingSpec spec;
  spec.form = coupling_form_from_string(cfg.choice("form", {"full", "factored", "softmax"}));
  if (spec.form != CouplingForm::kFull) {
    spec.heads = arma::uword(cfg.integer("heads", 1, 4096));
    spec.value_rank = arma::uword(cfg.integer("value_rank", 0, 64));
    spec.symmetrise = cfg.boolean("symmetrise");
  }
  if (spec.form == CouplingForm::kSoftmax) spec.head_dim = arma::uword(cfg.integer("head_dim", 1, 1024));
  spec.fields = cfg.boolean("fields");
  const std::string weighting = cfg.choice("weights", {"identity", "none"});
  const std::string fit_on = cfg.choice("fit_on", {"all", "train"});
  CouplingPenalty pen;
  pen.lambda_h = cfg.number("lambda_h", 0.0, 1e6);
  pen.lambda_c = cfg.number("lambda_c", 0.0, 1e6);
  pen.lambda_w = cfg.has("lambda_w") ? cfg.number("lambda_w", 0.0, 1e6) : 0.0;
  CouplingInit init;
  int restarts = 1;
  if (spec.form != CouplingForm::kFull) {
    init.std_couplings = cfg.number("init_std_couplings", 0.0, 10.0);
    init.std_values = cfg.number("init_std_values", 0.0, 10.0);
    restarts = int(cfg.integer("restarts", 1, 100));
  }
  if (spec.fields) init.fields_from_profile = cfg.boolean("fields_from_profile");
  // The optimiser: full-batch L-BFGS ("lbfgs": a strong-Wolfe line search;
  // "lean-lbfgs": every vector allocated once, for the full model's millions
  // of parameters), or mini-batch SGD as lib/train runs the masked-language-
  // model training (one restart).
  const std::string optimiser = cfg.choice("optimiser", {"lbfgs", "lean-lbfgs", "sgd"});
  const bool lbfgs = optimiser != "sgd";
  LbfgsOptions lo;
  SgdOptions so;
  if (lbfgs) {
    lo.max_iterations = int(cfg.integer("max_iterations", 1, 1000000));
    lo.gradient_tolerance = cfg.number_open("gradient_tolerance", 0.0, 1.0);
    // Optional: a stopping rule on the objective's decrease per iteration,
    // and the number of correction pairs L-BFGS keeps (its memory).
    if (cfg.has("relative_decrease")) lo.relative_decrease = cfg.number("relative_decrease", 0.0, 1.0);
    if (cfg.has("lbfgs_memory")) lo.memory = int(cfg.integer("lbfgs_memory", 1, 100));
  } else {
    so.epochs = int(cfg.integer("epochs", 1, 1000000));
    so.batch_size = arma::uword(cfg.integer("batch_size", 1, 1000000));
    so.lr0 = cfg.number_open("lr0", 0.0, 100.0);
    if (restarts != 1)
      throw StageError(cfg.origin() + ": 'restarts': SGD runs one restart (got " + std::to_string(restarts) + ")");
  }
  cfg.finish();

  const FamilyData f = read_family(st);
  const std::string test_h5 = st.input("family/test.h5");
  const arma::vec test_w = arma::vectorise(h5_read_matrix(test_h5, "weights"));
  const arma::imat train = nn::to_imat(f.train), test = nn::to_imat(f.test);
  if (test_w.n_elem != test.n_rows || f.train_weights.n_elem != train.n_rows)
    throw StageError(test_h5 + ": 'weights' has one entry per sequence in the prepare stage's outputs; the counts differ");
  const arma::imat fit_seqs = fit_on == "all" ? arma::imat(arma::join_cols(train, test)) : train;
  arma::vec fit_w = fit_on == "all" ? arma::vec(arma::join_cols(f.train_weights, test_w)) : f.train_weights;
  if (weighting == "none") fit_w.ones();
  spec.L = f.train.L;
  spec.C = kStates;
  spec.check();

  // One table of the objective per restart; curves.csv keeps the kept one's.
  std::vector<CsvTable> curves;
  lo.on_iteration = [&](int it, double fx, double gnorm) {
    if (it % 10 == 0)
      std::fprintf(stderr, "proteins_couplings %s: restart %zu, iteration %d/%d  objective %.6f  |grad| %.3g\n",
                   spec.describe().c_str(), curves.size() - 1, it, lo.max_iterations, fx, gnorm);
    curves.back().row({double(it), fx, gnorm});
  };
  const auto t0 = std::chrono::steady_clock::now();
  CouplingFit fit;
  if (lbfgs) {
    fit = fit_couplings(
        spec, fit_seqs, fit_w, pen, init, lo, st.seed(), restarts,
        [&](int) { curves.emplace_back(std::vector<std::string>{"iteration", "objective", "gradient_norm"}); },
        optimiser == "lean-lbfgs" ? LbfgsVariant::kLean : LbfgsVariant::kStrongWolfe);
  } else {
    curves.emplace_back(std::vector<std::string>{"epoch", "objective"});
    so.on_epoch = [&](int epoch, double fx) {
      std::fprintf(stderr, "proteins_couplings %s: SGD epoch %d/%d  objective %.6f\n", spec.describe().c_str(), epoch,
                   so.epochs, fx);
      curves.back().row({double(epoch), fx});
    };
    fit = fit_couplings_sgd(spec, fit_seqs, fit_w, pen, init, so, st.seed());
  }
  const CsvTable& kept_curves = curves.at(std::size_t(fit.best_restart));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Losses with unit weights (eq. 3), on the training and the test
  // sequences, whichever the fit saw.
  const arma::vec ones_train(train.n_rows, arma::fill::ones), ones_test(test.n_rows, arma::fill::ones);
  const double train_loss = weighted_pl_data_term(fit.W, fit.h, train, ones_train, nullptr, nullptr);
  const double test_loss = weighted_pl_data_term(fit.W, fit.h, test, ones_test, nullptr, nullptr);
  if (!std::isfinite(train_loss) || !std::isfinite(test_loss))
    throw StageError("the coupling fit diverged (non-finite loss); no result is written");
  const arma::mat scores = apc(frobenius_scores(fit.W, kStates));
  if (!scores.is_finite()) throw StageError("the contact scores are not finite; no result is written");

  H5Writer params;
  params.matrix("x", arma::mat(fit.x));
  params.matrix("h", fit.h);
  params.save(st.output("params.h5"));
  H5Writer h5;
  h5.matrix("scores", scores);
  h5.save(st.output("scores.h5"));
  kept_curves.save(st.output("curves.csv"));

  int evaluations = 0;
  nlohmann::json rs = nlohmann::json::array();
  for (const auto& r : fit.restarts) {
    evaluations += r.evaluations;
    rs.push_back({{"objective", r.objective},
                  {"train_loss_weighted", r.train_loss},
                  {"iterations", r.iterations},
                  {"evaluations", r.evaluations},
                  {"status", to_string(r.status)}});
  }
  nlohmann::json s;
  s["model"] = "couplings";
  s["form"] = to_string(spec.form);
  s["description"] = spec.describe();
  s["heads"] = spec.form == CouplingForm::kFull ? nlohmann::json(nullptr) : nlohmann::json(spec.heads);
  s["head_dim"] = spec.form == CouplingForm::kSoftmax ? nlohmann::json(spec.head_dim) : nlohmann::json(nullptr);
  s["value_rank"] = spec.value_rank;
  s["fields"] = spec.fields;
  s["symmetrise"] = spec.symmetrise;
  s["weights"] = weighting;
  s["fit_on"] = fit_on;
  s["fit_sequences"] = fit_seqs.n_rows;
  s["fit_n_eff"] = arma::accu(fit_w);
  s["L"] = spec.L;
  s["q"] = kStates;
  s["parameters"] = spec.parameter_count();
  s["lambda_h"] = pen.lambda_h;
  s["lambda_c"] = pen.lambda_c;
  if (pen.lambda_w != 0.0) s["lambda_w"] = pen.lambda_w;
  s["train_loss"] = train_loss;
  s["test_loss"] = test_loss;
  s["test_loss_held_out"] = fit_on == "train";
  s["objective"] = fit.objective;
  s["optimiser"] = optimiser;
  if (lbfgs)
    s["lbfgs"] = {{"memory", lo.memory},
                  {"max_iterations", lo.max_iterations},
                  {"gradient_tolerance", lo.gradient_tolerance},
                  {"relative_decrease", lo.relative_decrease}};
  if (optimiser == "sgd")
    s["sgd"] = {{"epochs", so.epochs}, {"batch_size", so.batch_size}, {"lr0", so.lr0}, {"schedule", "cosine"}};
  if (spec.form == CouplingForm::kSoftmax) {
    const AttentionSummary a = attention_summary(spec, fit.x);
    s["attention"] = {{"query_key_rms", a.query_key_rms},
                      {"largest_weight", a.largest_weight},
                      {"uniform_weight", a.uniform_weight}};
  }
  s["restarts"] = rs;
  s["best_restart"] = fit.best_restart;
  s["evaluations"] = evaluations;
  s["scores"] = "APC-corrected Frobenius norm of the zero-sum-gauge coupling blocks, gap excluded";
  st.write_summary(s);
  st.timings()["fit_seconds"] = seconds;
  st.timings()["seconds_per_evaluation"] = seconds / double(std::max(evaluations, 1));
}

}  // namespace potts
