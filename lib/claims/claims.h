// The paper's claims judged on the pipeline's results (paper/spec.md §8,
// paper/paper.md "Claims by reading"): one verdict per claim and data set,
// each with the number behind it and its standard error.
//
// Verdicts (a choice, stated once here and in paper/paper.md):
//  * a comparison d = (what the claim says is larger) − (what it says is
//    smaller), with standard error s from the seeds or realisations
//    (independent, so s = sqrt(s1² + s2²)):
//      holds          d > 2 s
//      does not hold  d < −2 s  (the opposite is resolved)
//      weak           otherwise (not resolved at 2 s.e.)
//  * a level x ± s against thresholds good < bad (e.g. e_rec near 0):
//      holds          x + 2 s < good
//      does not hold  x − 2 s > bad
//      weak           otherwise
// 2 s.e. is a two-sided 95 % interval for a normal mean; with 5 seeds the
// t distribution's 2.78 would be exact, so "holds" at 2 s.e. is the lenient
// side and "weak" marks every case that more seeds could still flip.
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

enum class Verdict { kHolds, kWeak, kDoesNotHold };
const char* to_string(Verdict v);

Verdict by_difference(double d, double se);
Verdict by_level(double x, double se, double good, double bad);

struct Cell {
  std::string id;         // "1a", "2b", ...
  std::string statement;  // the claim in words
  Verdict verdict = Verdict::kWeak;
  double value = 0.0, se = 0.0;  // the number behind the verdict
  std::string number;     // value ± se in words, with units
  std::string rule;       // how the verdict follows from the number
};

// Thresholds of the level claims (paper/paper.md states them).
struct Thresholds {
  double gap_good = 0.01, gap_bad = 0.05;   // ε − ε* relative to ε*
  double erec_good = 0.1, erec_bad = 0.5;   // reconstruction error
};

// The Potts-data claims of one data set (figures 2a-d, 3 right) from the
// summaries of its train merge, perturb merge and potts_alpha merge, and the
// potts_alpha realisations (columns M, test_loss) for the bootstrap of the
// peak position (`boot` resamples, seeded).
std::vector<Cell> potts_claims(const nlohmann::json& train, const nlohmann::json& perturb,
                               const nlohmann::json& potts, const std::map<std::string, std::vector<double>>& realisations,
                               const Thresholds& t, std::uint64_t seed, int boot);

// Claim 4 (figure 3 left), independent of the Potts data: the Gaussian
// model's theory and simulation (summaries of the replica and gaussian_sim
// stages).
std::vector<Cell> gaussian_claims(const nlohmann::json& replica, const nlohmann::json& simulation);

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
