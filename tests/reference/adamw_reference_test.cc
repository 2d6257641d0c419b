// The project's AdamW (lib/optim/adamw.h) against PyTorch's torch.optim.AdamW
// on the reference problems (adamw_reference_problem.h): a factored coupling
// model with fields, and the observation's factored attention (eq. O1) fitted
// by fit_attention_potts, the attention stage's own fitter; each with its
// seeded start and 20 seeded batches. The fixtures are PyTorch's output on
// those problems (tests/reference/adamw_reference.py, float64, one thread,
// the models written there from their equations); each test first checks
// that its fixture describes the problem the code defines now (sequences,
// start, batches), then that each step's batch loss agrees.
//
// Tolerance: both sides compute in IEEE double, with different summation
// orders (PyTorch's einsum and log-softmax, the project's sequential sums)
// and possibly fused multiply-adds on PyTorch's side; each loss is a mean of
// 128 terms of size about 2, and an AdamW step moves each coordinate by at
// most about lr whatever the gradient's scale, so rounding differences of
// about 1e-15 in the gradients move the iterates by a comparable relative
// amount. 1e-10 relative on the losses and 1e-9 absolute on the final
// parameters leave four orders of magnitude for that, and are far below
// the 1e-3 by which one step changes the loss: a wrong decay, bias
// correction or batch order fails. For the attention model the same holds
// (losses of about 10, summed over a batch of 16 and divided by it); a wrong
// pad, symmetrisation, softmax mask or penalty (norm, coefficient, the T / B
// factor) moves the first loss or the steps by far more.
#include <cmath>
#include <initializer_list>
#include <string>

#include <gtest/gtest.h>

#include "lib/core/io.h"
#include "tests/reference/adamw_reference_problem.h"

namespace potts {
namespace {

// The fixture describes the problem the code defines now: the given keys,
// and the start bit for bit (`start` names the function that made it).
void expect_fixture_is_problem(const nlohmann::json& fixture, const nlohmann::json& mine,
                               std::initializer_list<const char*> keys, const arma::vec& x0, const char* start) {
  for (const char* k : keys)
    ASSERT_EQ(fixture.at(k), mine.at(k)) << "the fixture's '" << k << "' is not the problem's: regenerate it";
  const auto fx0 = fixture.at("x0").get<std::vector<double>>();
  ASSERT_EQ(fx0.size(), x0.n_elem);
  for (std::size_t k = 0; k < fx0.size(); ++k)
    ASSERT_EQ(fx0[k], x0(k)) << "the fixture's start differs from " << start << "'s at " << k;
}

// The final parameters against PyTorch's (1e-9), and moved from the start
// by far more than that.
void expect_final_parameters(const nlohmann::json& fixture, const arma::vec& x, const arma::vec& x0) {
  const auto xf = fixture.at("torch_x_final").get<std::vector<double>>();
  ASSERT_EQ(xf.size(), x.n_elem);
  double worst = 0.0;
  for (std::size_t k = 0; k < xf.size(); ++k) worst = std::max(worst, std::abs(xf[k] - x(k)));
  EXPECT_LT(worst, 1e-9) << "largest difference of the final parameters from PyTorch's";
  EXPECT_GT(arma::abs(x - x0).max(), 1e-3);
}

TEST(AdamwReference, SameLossesAsPyTorchFor20Steps) {
  const auto fixture = read_json("tests/reference/testdata/adamw_reference.json");
  const auto p = adamw_reference::make_problem();
  ASSERT_NO_FATAL_FAILURE(expect_fixture_is_problem(
      fixture, adamw_reference::to_json(p),
      {"L", "C", "heads", "lr", "weight_decay", "betas", "eps", "steps", "sequences", "batches"}, p.x0,
      "coupling_initial_point"));

  const auto torch = fixture.at("torch_losses").get<std::vector<double>>();
  ASSERT_EQ(torch.size(), std::size_t(p.steps));
  Adamw opt(p.x0.n_elem, p.options);
  arma::vec x = p.x0, g;
  const CouplingPenalty none;
  for (int t = 0; t < p.steps; ++t) {
    const arma::uvec& rows = p.batches[std::size_t(t)];
    const double f = coupling_objective(p.spec, x, p.sequences.rows(rows), arma::vec(rows.n_elem, arma::fill::ones),
                                        none, &g, CouplingPath::kCouplings);
    EXPECT_NEAR(f, torch[std::size_t(t)], 1e-10 * std::abs(torch[std::size_t(t)])) << "step " << t + 1;
    opt.step(x, g);
  }
  expect_final_parameters(fixture, x, p.x0);
}

// An attention problem fitted by the stage's fitter (its start and batches
// drawn from the same seed) against its fixture: the fixture describes the
// problem (`keys`), each step's loss agrees, and so do the final parameters.
void expect_attention_fit_matches(const char* fixture_path, const adamw_reference::AttentionProblem& p,
                                  std::initializer_list<const char*> keys) {
  const auto fixture = read_json(fixture_path);
  ASSERT_NO_FATAL_FAILURE(
      expect_fixture_is_problem(fixture, adamw_reference::to_json(p), keys, p.x0, "attention_potts_start"));
  std::vector<double> losses;
  auto options = p.options;
  options.on_step = [&](long, double f) { losses.push_back(f); };
  const auto fit = fit_attention_potts(p.spec, p.sequences, p.penalty, options, p.seed);
  const auto torch = fixture.at("torch_losses").get<std::vector<double>>();
  ASSERT_EQ(torch.size(), std::size_t(p.options.steps));
  ASSERT_EQ(losses.size(), torch.size());
  for (std::size_t t = 0; t < torch.size(); ++t)
    EXPECT_NEAR(losses[t], torch[t], 1e-10 * std::abs(torch[t])) << "step " << t + 1;
  expect_final_parameters(fixture, fit.x, p.x0);
}

TEST(AdamwReference, ObservationAttentionFitSameLossesAsPyTorchFor20Steps) {
  expect_attention_fit_matches("tests/reference/testdata/adamw_reference_attention.json",
                               adamw_reference::make_attention_problem(),
                               {"model", "L", "A", "heads", "head_dim", "lambda", "family_size", "lr", "weight_decay",
                                "betas", "eps", "steps", "sequences", "batches"});
}

// The pinned code's objective (eq. O1s, no fields, full batches), against
// PyTorch's side written from that code's formula (pinned_attention_loss):
// the same tolerances (losses of about 300, N / B = 2.5 times a sum over a
// batch of 16).
TEST(AdamwReference, PinnedAttentionFitSameLossesAsPyTorchFor20Steps) {
  expect_attention_fit_matches("tests/reference/testdata/adamw_reference_pinned.json",
                               adamw_reference::make_pinned_attention_problem(),
                               {"model", "objective", "fields", "L", "A", "heads", "head_dim", "lambda", "family_size",
                                "lr", "weight_decay", "betas", "eps", "steps", "sequences", "batches"});
}

}  // namespace
}  // namespace potts
