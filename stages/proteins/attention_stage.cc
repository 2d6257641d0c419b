#include "stages/proteins/attention_stage.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "lib/core/io.h"
#include "lib/estimators/attention_potts.h"
#include "lib/proteins/contacts.h"
#include "lib/proteins/msa.h"
#include "stages/proteins/family_stage.h"

namespace potts {

using namespace proteins;

void run_proteins_attention(Stage& st) {
  Config& cfg = st.config();
  AttentionPottsSpec spec;
  spec.A = kGap;  // the 20 amino acids; the gap (state 20) is the pad
  spec.heads = arma::uword(cfg.integer("heads", 1, 4096));
  spec.head_dim = arma::uword(cfg.integer("head_dim", 1, 1024));
  AttentionPottsPenalty pen;
  pen.lambda = cfg.number("lambda", 0.0, 1e6);
  AttentionPottsFitOptions fo;
  fo.steps = long(cfg.integer("steps", 1, 10000000));
  fo.batch_size = arma::uword(cfg.integer("batch_size", 1, 1000000));
  fo.adamw.lr = cfg.number_open("lr", 0.0, 10.0);
  const std::string fit_on = cfg.choice("fit_on", {"all", "train"});
  cfg.finish();

  const FamilyData f = read_family(st);
  const arma::imat train = nn::to_imat(f.train), test = nn::to_imat(f.test);
  const arma::imat fit_seqs = fit_on == "all" ? arma::imat(arma::join_cols(train, test)) : train;
  spec.L = f.train.L;
  spec.check();
  pen.family_size = fit_seqs.n_rows;

  CsvTable curves({"step", "batch_loss"});
  const auto t0 = std::chrono::steady_clock::now();
  fo.on_step = [&](long t, double loss) {
    curves.row({double(t), loss});
    if (t % 100 == 0 || t == fo.steps)
      std::fprintf(stderr, "proteins_attention H = %llu, d = %llu: step %ld/%ld  batch loss %.5f  (%.0f s)\n",
                   (unsigned long long)spec.heads, (unsigned long long)spec.head_dim, t, fo.steps, loss,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  const AttentionPottsFit fit = fit_attention_potts(spec, fit_seqs, pen, fo, st.seed());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const double train_loss = attention_potts_mean_loss(spec, fit.x, train);
  const double test_loss = attention_potts_mean_loss(spec, fit.x, test);
  if (!std::isfinite(train_loss) || !std::isfinite(test_loss))
    throw StageError("the attention fit diverged (non-finite loss); no result is written");
  const arma::mat scores = apc(attention_potts_block_norms(spec, fit.x));
  if (!scores.is_finite()) throw StageError("the contact scores are not finite; no result is written");

  H5Writer params;
  params.matrix("x", arma::mat(fit.x));
  params.save(st.output("params.h5"));
  H5Writer h5;
  h5.matrix("scores", scores);
  h5.save(st.output("scores.h5"));
  curves.save(st.output("curves.csv"));

  nlohmann::json s;
  s["model"] = "attention";
  s["description"] = "softmax attention, H = " + std::to_string(spec.heads) + ", d = " +
                     std::to_string(spec.head_dim) + ", V full, the gap a pad, penalty on W (the observation's protocol)";
  s["heads"] = spec.heads;
  s["head_dim"] = spec.head_dim;
  s["L"] = spec.L;
  s["q"] = spec.A;
  s["parameters"] = spec.parameter_count();
  s["lambda"] = pen.lambda;
  s["weights"] = "none";
  s["fit_on"] = fit_on;
  s["fit_sequences"] = fit_seqs.n_rows;
  s["train_loss"] = train_loss;
  s["test_loss"] = test_loss;
  s["test_loss_held_out"] = fit_on == "train";
  s["loss"] = "mean cross-entropy per non-gap target, no penalty";
  s["optimiser"] = "adamw";
  s["adamw"] = {{"steps", fo.steps},
                {"batch_size", fo.batch_size},
                {"lr", fo.adamw.lr},
                {"betas", {fo.adamw.beta1, fo.adamw.beta2}},
                {"eps", fo.adamw.eps},
                {"weight_decay", fo.adamw.weight_decay},
                {"epochs", fit.epochs}};
  s["attention"] = {{"median_row_max", attention_potts_median_row_max(spec, fit.x)},
                    {"uniform_weight", 1.0 / double(spec.L - 1)}};
  s["scores"] = "APC-corrected Frobenius norm of the symmetrised coupling blocks over the 20 amino acids";
  st.write_summary(s);
  st.timings()["fit_seconds"] = seconds;
  st.timings()["seconds_per_step"] = seconds / double(fo.steps);
}

}  // namespace potts
