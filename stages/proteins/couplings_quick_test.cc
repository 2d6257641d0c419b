// The proteins_couplings stage on the quick family (PF00071 against 121P):
// one run of each form (stages/proteins/configs/quick_cm_*.json).
//
// What is checked, and the tolerances:
//  * each summary says what was fitted: the parameter count of its form
//    (counted here from L = 159, q = 21), the sequences and N_eff of the
//    fit (the prepare stage's, all or training only), whether the test loss
//    is held out;
//  * scores are a finite symmetric matrix with a zero diagonal, and L-BFGS
//    never increases the objective (strong Wolfe steps);
//  * the weighted full model fitted on every sequence finds contacts after
//    12 iterations: top-L precision (|i - j| >= 6) at least 0.25. The
//    unweighted model on the training sequences reached 0.36 after 15
//    iterations on this family; a precision near 0.36 over 159 pairs has
//    binomial s.e. 0.038, so 0.25 is about 3 s.e. below it, while wrong
//    weights, a broken gauge or transposed blocks give about the random
//    rate 351 / 11 781 = 0.030;
//  * the weighted PLM's stage, rerun from its record at 1, 2 and 3 threads,
//    writes the Bazel-built bytes (its panels run side by side, their sums
//    in the same order: coupling_panels.h).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"
#include "lib/proteins/contacts.h"
#include "stages/proteins/quick_family.h"
#include "tests/util/stage_rerun.h"
#include "tests/util/test_util.h"

namespace potts {
namespace {

using testing_quick::kFamily;
using testing_quick::run_dir;

const arma::uword kL = 159, kQ = 21;

nlohmann::json family() { return read_json(kFamily + "summary.json"); }

TEST(CouplingsQuick, SummariesSayWhatWasFitted) {
  const nlohmann::json f = family();
  const int all = f.at("train_sequences").get<int>() + f.at("test_sequences").get<int>();
  struct Expect {
    std::string run;
    arma::uword parameters;
    bool held_out;
  };
  const arma::uword fields = kL * kQ;
  const std::vector<Expect> expect = {
      {"cm_plm", fields + kL * (kL - 1) / 2 * kQ * kQ, false},
      {"cm_heldout_factored_h4_s1", fields + 4 * (kL * kL + kQ * kQ), true},
      {"cm_softmax_h2_s1", fields + 2 * (2 * kL * 4 + 2 * kQ * 4), false},
  };
  for (const auto& e : expect) {
    const nlohmann::json s = read_json(run_dir(e.run) + "summary.json");
    EXPECT_EQ(s.at("parameters").get<arma::uword>(), e.parameters) << e.run;
    EXPECT_EQ(s.at("test_loss_held_out").get<bool>(), e.held_out) << e.run;
    EXPECT_EQ(s.at("fit_sequences").get<int>(), e.held_out ? f.at("train_sequences").get<int>() : all) << e.run;
    EXPECT_NEAR(s.at("fit_n_eff").get<double>(), f.at(e.held_out ? "n_eff_train" : "n_eff").get<double>(), 1e-9)
        << e.run;
    EXPECT_GT(s.at("evaluations").get<int>(), 0) << e.run;
  }
  const nlohmann::json fac = read_json(run_dir("cm_heldout_factored_h4_s1") + "summary.json");
  ASSERT_EQ(fac.at("restarts").size(), 2u);
  const int best = fac.at("best_restart").get<int>();
  for (const auto& r : fac.at("restarts"))
    EXPECT_LE(fac.at("restarts").at(best).at("objective").get<double>(), r.at("objective").get<double>());
}

TEST(CouplingsQuick, ScoresAreSymmetricAndTheObjectiveNeverIncreases) {
  for (const std::string run : {"cm_plm", "cm_heldout_factored_h4_s1", "cm_softmax_h2_s1"}) {
    testing_quick::expect_contact_scores(run);
    testing_quick::expect_objective_never_rises(run);
  }
}

TEST(CouplingsQuick, TheWeightedFullModelOnAllSequencesFindsContacts) {
  EXPECT_GE(testing_quick::checked_top_l("cm_plm", "weighted full model on all sequences, 12 iterations"), 0.25);
}

TEST(CouplingsQuick, TheWeightedPlmWritesTheSameBytesAtOneTwoAndThreeThreads) {
  const std::string built = run_dir("cm_plm");
  const nlohmann::json rec = read_json(built + "provenance.json");
  ASSERT_FALSE(rec.at("outputs").empty());
  for (const std::string threads : {"1", "2", "3"}) {
    SCOPED_TRACE(threads + " threads");
    const std::string dir = testing_util::tmpdir() + "/cm_plm_threads" + threads;
    ASSERT_EQ(testing_util::rerun_stage(rec, "stages/proteins/couplings", dir, "", threads), 0)
        << read_text(dir + "/stderr.txt");
    EXPECT_EQ(read_json(dir + "/provenance.json").at("threads").get<int>(), std::stoi(threads));
    for (const auto& [key, value] : rec.at("outputs").items())
      EXPECT_EQ(sha256_file(dir + "/" + key), sha256_file(built + key)) << key;
  }
}

}  // namespace
}  // namespace potts
