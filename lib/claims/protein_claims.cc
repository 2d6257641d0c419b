// The claims on a real protein family (P1-P3), the heads sweep's claim (P4)
// and the observation's protocol (P5): top-L precisions and paired
// differences from the proteins score summary.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lib/claims/cells.h"
#include "lib/claims/claims.h"
#include "lib/core/error.h"

namespace potts {
namespace claims {

using namespace detail;

namespace {

struct Top {
  double p, se;
};

// What a protein claim's standard error covers.
const char* const kProteinBasis = "training seeds and the L predicted pairs (binomial)";

// A predictor's top-L precision (|i − j| ≥ 6) and its s.e. in a score summary.
Top top_l(const nlohmann::json& score, const std::string& predictor) {
  const nlohmann::json& ps = score.at("predictors");
  if (!ps.contains(predictor))
    throw StageError("claims: the proteins score summary has no predictor '" + predictor + "'");
  const nlohmann::json& c = ps.at(predictor).at("precision").at("6+").at("L");
  return Top{c.at("mean").get<double>(), c.at("se").get<double>()};
}

}  // namespace

std::vector<Cell> protein_claims(const nlohmann::json& score, double margin, const ProteinKeys& keys) {
  const Top f = top_l(score, keys.factored), v1 = top_l(score, keys.vanilla1), v3 = top_l(score, keys.vanilla3),
            plm = top_l(score, keys.plm), f3 = top_l(score, keys.p3_factored);
  const double z = t_critical(0, kLevel);
  const std::string basis = kProteinBasis;
  std::vector<Cell> out;
  {
    const double d = v3.p - f.p, s = std::hypot(v3.se, f.se);
    out.push_back(make_cell("P1",
                            "on a real family, one factored layer predicts contacts at least as well as three "
                            "vanilla layers (top-L precision)",
                            Estimate{d, s, 0, basis}, absence(d, s, z),
                            fmt("d = P(three vanilla layers) − P(factored) = %.3f ± %.3f", d, s),
                            "an absence: holds unless d > z·s.e. (one-sided z-test at 5 %, z = 1.645)"));
  }
  {
    const double d = f.p - v1.p, s = std::hypot(f.se, v1.se);
    out.push_back(make_cell("P2",
                            "on a real family, one factored layer predicts contacts better than one vanilla "
                            "layer (top-L precision)",
                            Estimate{d, s, 0, basis}, comparison(d, s, z),
                            fmt("d = P(factored) − P(one vanilla layer) = %.3f ± %.3f", d, s),
                            "one-sided z-test at 5 %: holds if d > z·s.e., does not hold if d < −z·s.e., "
                            "undecided otherwise"));
  }
  {
    const double d = f3.p - plm.p, s = std::hypot(f3.se, plm.se);
    char rule[200];
    std::snprintf(rule, sizeof rule,
                  "parity within %.2f: holds if ∣d∣ + z·s.e. < %.2f, does not hold if ∣d∣ − z·s.e. > %.2f, "
                  "undecided otherwise (z = 1.645)",
                  margin, margin, margin);
    out.push_back(make_cell("P3",
                            "on a real family, factored attention predicts contacts on par with the "
                            "pseudo-likelihood model (top-L precision)",
                            Estimate{d, s, 0, basis}, level(std::abs(d), s, z, margin, margin),
                            fmt("d = P(factored) − P(PLM) = %.3f ± %.3f", d, s), rule));
  }
  return out;
}

nlohmann::json paired_difference(const nlohmann::json& score, const std::string& a, const std::string& b) {
  if (!score.contains("paired") || !score.at("paired").contains(a) || !score.at("paired").at(a).contains(b))
    return nullptr;
  return score.at("paired").at(a).at(b);
}

Cell observation_claim(const nlohmann::json& score, double margin, const ObservationKeys& keys) {
  const nlohmann::json p = paired_difference(score, keys.attention, keys.plm);
  if (p.is_null())
    throw StageError("claims: " + keys.id + " needs the paired difference of '" + keys.attention + "' and '" +
                     keys.plm + "' in the proteins score summary (the score stage's 'paired')");
  const double d = p.at("difference").get<double>(), se = p.at("standard_error").get<double>();
  const double z = t_critical(0, kLevel);
  const bool holds = d + margin > z * se, fails = d + margin < -z * se;
  std::string beside;
  const nlohmann::json w = paired_difference(score, keys.attention, keys.weighted_plm);
  if (!w.is_null())
    beside = fmt("; against the weighted PLM %.3f ± %.3f", w.at("difference").get<double>(),
                 w.at("standard_error").get<double>());
  char number[400];
  std::snprintf(number, sizeof number,
                "d = P(attention) − P(PLM, same conventions) = %.3f ± %.3f (paired)%s; the observation's median "
                "gap over its families: %.3f",
                d, se, beside.c_str(), keys.observed_gap);
  char rule[300];
  std::snprintf(rule, sizeof rule,
                "non-inferiority within %.2f: holds if d + %.2f > z·s.e., does not hold if d + %.2f < −z·s.e., "
                "undecided otherwise (z = %.3f; s.e. the delete-one-residue jackknife with the seeds' spread)",
                margin, margin, margin, z);
  return make_cell(keys.id, keys.statement,
                   Estimate{d, se, 0, "the L residues (paired jackknife) and the training seeds"},
                   holds   ? Verdict::kHolds
                   : fails ? Verdict::kDoesNotHold
                           : Verdict::kUndecided,
                   number, rule);
}

HeadsClaim heads_claim(const nlohmann::json& score, const std::string& plm_key,
                       const std::vector<HeadsConfiguration>& configurations, double margin, const HeadsLabel& label) {
  if (configurations.empty())
    throw StageError("claims: " + label.id + " needs at least one configuration of the heads sweep");
  const Top plm = top_l(score, plm_key);
  const double zk = t_critical(0, kLevel / double(configurations.size())), z = t_critical(0, kLevel);
  HeadsClaim out;
  out.configurations = nlohmann::json::array();
  bool any_good = false, all_worse = true;
  std::size_t best = 0;
  std::vector<double> d(configurations.size()), se(configurations.size());
  for (std::size_t k = 0; k < configurations.size(); ++k) {
    const HeadsConfiguration& c = configurations[k];
    const Top t = top_l(score, c.key);
    d[k] = t.p - plm.p;
    se[k] = std::hypot(t.se, plm.se);
    const bool good = d[k] + margin > zk * se[k], worse = d[k] + margin < -z * se[k];
    any_good = any_good || good;
    all_worse = all_worse && worse;
    if (good && c.paper_form && (out.smallest_heads == 0 || c.heads < out.smallest_heads)) out.smallest_heads = c.heads;
    if (d[k] > d[best]) best = k;
    out.configurations.push_back({{"key", c.key},
                                  {"heads", c.heads},
                                  {"paper_form", c.paper_form},
                                  {"d", d[k]},
                                  {"se", se[k]},
                                  {"status", good    ? "as good"
                                             : worse ? "worse"
                                                     : "undecided"}});
    // The paired s.e. of the same difference, reported beside (the rule keeps P3's s.e.).
    const nlohmann::json pd = paired_difference(score, c.key, plm_key);
    if (!pd.is_null()) out.configurations.back()["paired_se"] = pd.at("standard_error");
  }
  const Verdict v = any_good ? Verdict::kHolds : all_worse ? Verdict::kDoesNotHold : Verdict::kUndecided;
  char number[300];
  std::snprintf(number, sizeof number, "best: %s (H = %d): d = P − P(PLM) = %.3f ± %.3f; smallest H as good: %s",
                configurations[best].key.c_str(), configurations[best].heads, d[best], se[best],
                out.smallest_heads > 0 ? std::to_string(out.smallest_heads).c_str() : "none");
  char rule[400];
  std::snprintf(rule, sizeof rule,
                "non-inferiority within %.2f over %zu configurations: holds if some configuration has d + %.2f > "
                "z_k·s.e. (z_k = %.3f, 5 %% Bonferroni-corrected), does not hold if every one has d + %.2f < "
                "−z·s.e. (z = %.3f), undecided otherwise",
                margin, configurations.size(), margin, zk, margin, z);
  out.cell = make_cell(label.id, label.statement, Estimate{d[best], se[best], 0, kProteinBasis}, v, number, rule);
  return out;
}

}  // namespace claims
}  // namespace potts
