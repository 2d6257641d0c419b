// The proteins_attention stage on the quick family (PF00071 against 121P):
// a short fit of the observation's protocol (quick_cm_attn_h4.json: H = 4,
// d = 8, 40 AdamW steps) and the PLM on the same conventions
// (quick_cm_plm_pad.json: 12 L-BFGS iterations).
//
// What is checked, and the tolerances:
//  * each summary says what was fitted: the parameter count (counted here
//    from L = 159 and the 20 amino acids), every sequence, no weights, the
//    gap a pad;
//  * scores are a finite symmetric matrix with a zero diagonal; the AdamW
//    curve has one finite batch loss per step; the lean L-BFGS never
//    increases the objective (an Armijo search);
//  * attention is not uniform: the median over rows of each row's largest
//    weight exceeds a uniform row's 1 / (L - 1) (exactly uniform maps would
//    equal it; the Xavier start is not);
//  * the PLM on the observation's conventions finds contacts after 12
//    iterations: top-L precision (|i - j| >= 6) at least 0.10. The random
//    rate is 351 / 11 781 = 0.030, whose binomial s.e. over 159 pairs is
//    0.0135: 0.10 is five of them above it, and transposed blocks, a wrong
//    pad or a broken score stay near the random rate.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"
#include "lib/attention_potts/attention_potts.h"
#include "lib/proteins/contacts.h"
#include "stages/proteins/quick_family.h"

namespace potts {
namespace {

using testing_quick::kFamily;
using testing_quick::run_dir;

const arma::uword kL = 159, kA = 20;

TEST(AttentionQuick, SummariesSayWhatWasFitted) {
  const nlohmann::json f = read_json(kFamily + "summary.json");
  const int all = f.at("train_sequences").get<int>() + f.at("test_sequences").get<int>();
  const std::vector<std::pair<std::string, arma::uword>> expect = {
      {"cm_attn_h4_s1", kA * kL + 2 * 4 * 8 * kL + 4 * kA * kA},
      {"cm_plm_pad", kA * kL + kL * (kL - 1) / 2 * kA * kA},
  };
  for (const auto& [run, parameters] : expect) {
    const nlohmann::json s = read_json(run_dir(run) + "summary.json");
    EXPECT_EQ(s.at("parameters").get<arma::uword>(), parameters) << run;
    EXPECT_EQ(s.at("fit_sequences").get<int>(), all) << run;
    EXPECT_EQ(s.at("weights"), "none") << run;
    EXPECT_EQ(s.at("gap"), "pad") << run;
    EXPECT_EQ(s.at("q").get<arma::uword>(), kA) << run;
    // Losses per non-gap target: below a uniform guess over 20 states.
    EXPECT_LT(s.at("train_loss").get<double>(), std::log(20.0)) << run;
  }
  const nlohmann::json a = read_json(run_dir("cm_attn_h4_s1") + "summary.json");
  EXPECT_EQ(a.at("adamw").at("steps").get<int>(), 40);
  // 40 batches, ceil(all / 128) per epoch (the last one shorter): the epochs begun.
  const int per_epoch = (all + 127) / 128;
  EXPECT_EQ(a.at("adamw").at("epochs").get<int>(), (40 + per_epoch - 1) / per_epoch);
  EXPECT_DOUBLE_EQ(a.at("attention_maps").at("uniform_weight").get<double>(), 1.0 / double(kL - 1));
  // Attention moved away from its start: the fitted maps' median row maximum
  // exceeds the Xavier start's (the same spec and seed; the start's fields
  // do not enter the maps, so any sequences do). The start alone is already
  // above a uniform row's 1 / (L - 1), so that bound could not fail.
  AttentionPottsSpec spec;
  spec.L = kL;
  spec.C = kA;
  spec.heads = 4;
  spec.head_dim = 8;
  spec.float_products = true;
  const auto seed = read_json(run_dir("cm_attn_h4_s1") + "provenance.json").at("seed").get<std::uint64_t>();
  const double start = attention_potts_median_row_max(
      spec, attention_potts_start(spec, arma::imat(1, kL, arma::fill::zeros), 1e-3, seed));
  const double fitted = a.at("attention_maps").at("median_row_max").get<double>();
  std::printf("median row maximum: start %.6f, after %d steps %.6f\n", start, 40, fitted);
  EXPECT_GT(fitted, start);
}

TEST(AttentionQuick, ScoresAndCurves) {
  for (const std::string run : {"cm_attn_h4_s1", "cm_plm_pad"}) {
    testing_quick::expect_contact_scores(run);
  }
  const auto adam = read_csv(run_dir("cm_attn_h4_s1") + "curves.csv");
  const auto& loss = csv_column(adam, "curves.csv", "batch_loss");
  ASSERT_EQ(loss.size(), 40u);
  for (double l : loss) EXPECT_TRUE(std::isfinite(l));
  testing_quick::expect_objective_never_rises("cm_plm_pad");
}

TEST(AttentionQuick, ThePlmOnTheObservationsConventionsFindsContacts) {
  EXPECT_GE(testing_quick::checked_top_l("cm_plm_pad", "PLM, the gap a pad, no weights, 12 iterations"), 0.10);
}

}  // namespace
}  // namespace potts
