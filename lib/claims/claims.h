// The paper's claims judged on the pipeline's results (paper/spec.md §8,
// paper/paper.md "Claims"): one verdict per claim and data regime, each with
// the number behind it, its standard error and where that error comes from.
//
// The rules, stated once (paper/spec.md §8 explains them in words):
//  * A model's result on a data set is its restart with the lowest final
//    training loss over every training position: restarts are part of the
//    optimiser, and the ranking uses neither test data nor J.
//  * The uncertainty of a claim's number d is its variation between
//    independent data sets (J, U and chains each drawn from its own seed):
//    d̄ over R replicates, se = sd/√R, Student's t with R − 1 degrees of
//    freedom. A regime with one data set falls back on the spread over its
//    training seeds (the same quantity computed seed by seed), which counts
//    optimisation noise only; the cell says which basis it used.
//  * A comparison ("X is larger than Y", d = X − Y) is a one-sided test at
//    5 %: holds if d > t·se, does not hold if d < −t·se (the opposite is
//    resolved at the same level), undecided otherwise.
//  * A claim that something is absent (factored attention has no excess
//    beyond what the finite sample explains; no initial decay) holds unless
//    the data reject it: does not hold if the excess d > t·se, holds
//    otherwise.
//  * A level (e_rec near 0) holds if d + t·se < good, does not hold if
//    d − t·se > bad, undecided otherwise (good, bad: Thresholds).
//  * Realisation-based claims (figure 3 right) use the realisations' s.e.
//    and normal quantiles, Bonferroni-corrected when one verdict needs
//    several comparisons; the Gaussian model's claims use the resampled
//    uncertainty of its finite-size extrapolation.
//
// Tested by //lib/claims:claims_test; on the committed results, //paper:claims_test.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace potts {
namespace claims {

enum class Verdict { kHolds, kUndecided, kDoesNotHold };
const char* to_string(Verdict v);

// Student's t quantile with `dof` degrees of freedom (dof <= 0: normal).
double t_critical(int dof, double one_sided_level);

// The rules above, with critical value `crit` (t_critical or a normal quantile).
Verdict comparison(double d, double se, double crit);
Verdict absence(double d, double se, double crit);
Verdict level(double x, double se, double crit, double good, double bad);

struct Cell {
  std::string id;         // "1a", "2b", ...
  std::string statement;  // the claim in words
  Verdict verdict = Verdict::kUndecided;
  double value = 0.0, se = 0.0;  // the number behind the verdict
  std::string number;            // value ± se in words, with units
  std::string basis;             // where se comes from
  std::string rule;              // how the verdict follows from the number
};

// Thresholds of the level claim 2a (a convention, stated in paper/paper.md).
struct Thresholds {
  double erec_good = 0.1, erec_bad = 0.5;
};

// One data set's merged training and perturbation results (summaries of
// the train and perturb merges) and the finite-sample excess of its best
// factored restart (the factored_excess stage's summary).
struct DataSet {
  std::string name;
  nlohmann::json train, perturb, excess;
};

// Claims 1-3 (figure 2) on one regime: replicates when sets.size() >= 2,
// else the seed spread of the one data set.
std::vector<Cell> training_claims(const std::vector<DataSet>& sets, const Thresholds& t);

// Claim 5 (figure 3 right) from a potts_alpha merge summary and its
// realisations (columns M, test_loss); the peak position is bootstrapped
// (`boot` resamples, seeded) for the record.
std::vector<Cell> sample_complexity_claims(const nlohmann::json& potts,
                                           const std::map<std::string, std::vector<double>>& realisations,
                                           std::uint64_t seed, int boot);

// Claim 5c alone, on any potts_alpha merge summary (the investigation of
// the initial decay runs it on variants of the estimator).
Cell initial_decay(const nlohmann::json& potts);

// Claim 4 (figure 3 left), independent of the Potts data: the replica and
// gaussian_sim summaries and the finite-size study's merge summary.
std::vector<Cell> gaussian_claims(const nlohmann::json& replica, const nlohmann::json& simulation,
                                  const nlohmann::json& finite_size);

// Claims P1-P3 on a real protein family, from the proteins_score stage's
// summary: top-L precision (|i − j| ≥ 6) of each model, averaged over its
// seeds, with s.e.² = (seed spread's s.e.)² + p(1 − p)/L, the sampling
// error of a precision over L predicted pairs; one-sided z-tests at 5 %.
//  * P1 (an absence: factored attention is not worse than three vanilla
//    layers): d = P(vanilla3) − P(factored); does not hold if d > z·s.e.
//  * P2 (a comparison): d = P(factored) − P(vanilla1).
//  * P3 (parity with the pseudo-likelihood model within `margin`):
//    holds if |d| + z·s.e. < margin, does not hold if |d| − z·s.e. > margin,
//    undecided otherwise (d = P(factored) − P(plm)).
// `keys` names the predictors of the score summary each claim compares: P1
// and P2 the models trained by masked language modelling; P3 the
// single-head factored model and the PLM (by default the same "factored"
// and "plm"; with the heads sweep, both fitted by one protocol).
struct ProteinKeys {
  std::string factored = "factored", vanilla1 = "vanilla1", vanilla3 = "vanilla3";
  std::string p3_factored = "factored", plm = "plm";
};
std::vector<Cell> protein_claims(const nlohmann::json& score, double margin, const ProteinKeys& keys = {});

// Claim P4 on a real family: "with enough heads, factored attention
// predicts contacts as well as the pseudo-likelihood model". For each
// configuration c of the heads sweep, d_c = P(c) − P(plm) (top-L precision,
// |i − j| ≥ 6) with P3's s.e. A non-inferiority test with margin `margin`:
//  * c is as good as the PLM if d_c + margin > z_k·s.e., z_k the one-sided
//    5 % normal quantile Bonferroni-corrected over the k configurations
//    (the best of k is a selection: the correction keeps the chance that
//    any of them passes by luck at 5 %);
//  * c is worse if d_c + margin < −z·s.e. (z = 1.645).
// P4 holds if any configuration is as good, does not hold if every one is
// worse (each at 5 %: the claim fails only if all fail), undecided
// otherwise. The cell's number is the best configuration's (highest mean);
// `smallest_heads` is the smallest H of the paper's form (eq. 4 summed over
// heads) that is as good, 0 if none is.
struct HeadsConfiguration {
  std::string key;         // predictor key in the score summary
  int heads = 0;           // H
  bool paper_form = true;  // eq. 4 with H heads (false: softmax attention)
};
struct HeadsClaim {
  Cell cell;
  int smallest_heads = 0;
  nlohmann::json configurations;  // per configuration: key, heads, d, se, status
};
// The claim's id and statement: P4's by default; a second look at the same
// claim with other fits of the configurations (a follow-up, its rule the
// same) names its own.
struct HeadsLabel {
  std::string id = "P4";
  std::string statement =
      "on a real family, with enough heads, factored attention predicts contacts as well as the pseudo-likelihood "
      "model (top-L precision)";
};
HeadsClaim heads_claim(const nlohmann::json& score, const std::string& plm_key,
                       const std::vector<HeadsConfiguration>& configurations, double margin,
                       const HeadsLabel& label = {});

// The paired difference of two predictors' top-L precision in the score
// summary ("paired": [A][B], the delete-one-residue jackknife with the
// seeds' spread; lib/proteins/paired.h): {difference, standard_error,
// jackknife_se, seeds_se}, or null when the score stage did not pair them.
nlohmann::json paired_difference(const nlohmann::json& score, const std::string& a, const std::string& b);

// Claim P5 on a real family: "trained as the observation trained it,
// factored attention predicts contacts as well as the pseudo-likelihood
// model on the same data conventions". d = P(attention) − P(plm) (top-L
// precision, |i − j| ≥ 6, each the mean over its fits) with the paired
// s.e. of the score summary; non-inferiority within `margin`: holds if
// d + margin > z·s.e., does not hold if d + margin < −z·s.e. (z = 1.645),
// undecided otherwise. The number also gives d against `weighted_plm` with
// its paired s.e., and the observation's own median gap `observed_gap`.
struct ObservationKeys {
  std::string id = "P5";
  std::string statement;
  std::string attention, plm, weighted_plm;
  double observed_gap = 0.0;  // the observation's median P(attention) − P(Potts) over its families
};
Cell observation_claim(const nlohmann::json& score, double margin, const ObservationKeys& keys);

nlohmann::json to_json(const Cell& c);

// Position of the peak of a test-loss curve over realisations: for each
// resample, realisations are drawn with replacement within each M and the
// argmax of the mean is recorded. Returns the 16th, 50th and 84th
// percentiles of the peak's alpha (= M / L) and the share of resamples whose
// peak is at the observed one.
struct PeakPosition {
  double alpha = 0.0, lo = 0.0, median = 0.0, hi = 0.0, share_at_observed = 0.0;
};
PeakPosition bootstrap_peak(const std::vector<double>& M, const std::vector<double>& test_loss, double L,
                            std::uint64_t seed, int resamples);

}  // namespace claims
}  // namespace potts
