#include "lib/claims/panel_claim.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "lib/claims/cells.h"
#include "lib/core/rank.h"
#include "lib/core/rng.h"

namespace potts {
namespace claims {

using namespace detail;

MedianInterval bootstrap_median(const std::vector<double>& x, std::uint64_t seed, int resamples, double level) {
  if (resamples < 1 || !(level > 0.0 && level < 1.0))
    throw StageError("claims: a bootstrap needs resamples >= 1 and a level in (0, 1)");
  MedianInterval m;
  m.median = median(x);
  Rng rng(seed, streams::kBootstrap);
  std::vector<double> medians(static_cast<std::size_t>(resamples)), draw(x.size());
  for (auto& med : medians) {
    for (auto& v : draw) v = x[rng.below(x.size())];
    med = median(draw);
  }
  std::sort(medians.begin(), medians.end());
  // The order statistic ceil(q B) (1-based), q = (1 -/+ level) / 2.
  auto at_rank = [&](double q) {
    const double k = std::ceil(q * double(resamples) - 1e-9);
    return medians[std::size_t(std::clamp(k, 1.0, double(resamples))) - 1];
  };
  m.lo = at_rank(0.5 * (1.0 - level));
  m.hi = at_rank(0.5 * (1.0 + level));
  return m;
}

namespace {

std::vector<double> differences(const std::vector<PanelFamily>& f, double PanelFamily::*other) {
  std::vector<double> d;
  for (const auto& x : f) d.push_back(x.attention - x.*other);
  return d;
}

nlohmann::json to_json(const MedianInterval& m) { return {{"median", m.median}, {"lo", m.lo}, {"hi", m.hi}}; }

void check_panel(const std::vector<PanelFamily>& families, const PanelKeys& keys) {
  if (int(families.size()) < keys.min_families)
    throw StageError("claims: " + keys.id + " needs at least " + std::to_string(keys.min_families) + " families, got " +
                     std::to_string(families.size()));
  std::set<std::string> seen;
  for (const auto& f : families) {
    if (!seen.insert(f.family).second) throw StageError("claims: " + keys.id + ": family '" + f.family + "' twice");
    for (double p : {f.attention, f.plm, f.weighted_plm, f.evfold})
      if (!(p >= 0.0 && p <= 1.0))
        throw StageError("claims: " + keys.id + ": family '" + f.family + "' has a precision outside [0, 1]");
  }
}

}  // namespace

Cell panel_claim(const std::vector<PanelFamily>& families, double margin, const PanelKeys& keys,
                 nlohmann::json* detail) {
  check_panel(families, keys);
  const std::vector<double> d = differences(families, &PanelFamily::plm);
  const MedianInterval m = bootstrap_median(d, keys.seed, kPanelResamples, kPanelLevel);
  const MedianInterval w =
      bootstrap_median(differences(families, &PanelFamily::weighted_plm), keys.seed, kPanelResamples, kPanelLevel);
  const MedianInterval e =
      bootstrap_median(differences(families, &PanelFamily::evfold), keys.seed, kPanelResamples, kPanelLevel);
  const std::size_t ahead = std::count_if(d.begin(), d.end(), [](double v) { return v > 0.0; });
  const std::size_t ties = std::count(d.begin(), d.end(), 0.0);
  const bool contains_observed = m.lo <= keys.observed_gap && keys.observed_gap <= m.hi;
  const Verdict v = m.lo > -margin ? Verdict::kHolds : m.hi < -margin ? Verdict::kDoesNotHold : Verdict::kUndecided;
  char number[500];
  std::snprintf(number, sizeof number,
                "median d = P(attention) − P(PLM, same conventions) = %.3f (95 %% bootstrap %.3f to %.3f) over %zu "
                "families, attention ahead in %zu (%zu ties); the observation's median gap %.3f is %s the interval; "
                "against the weighted PLM %.3f (%.3f to %.3f), against EVfold %.3f (%.3f to %.3f)",
                m.median, m.lo, m.hi, families.size(), ahead, ties, keys.observed_gap,
                contains_observed ? "inside" : "outside", w.median, w.lo, w.hi, e.median, e.lo, e.hi);
  char rule[300];
  std::snprintf(rule, sizeof rule,
                "non-inferiority within %.2f over families: holds if the interval's lower end > −%.2f, does not "
                "hold if its upper end < −%.2f, undecided otherwise (seeded percentile bootstrap over families, "
                "%d resamples, two-sided 95 %%)",
                margin, margin, margin, kPanelResamples);
  Estimate est{m.median, 0.5 * (m.hi - m.lo) / 1.959963984540054, 0,
               std::to_string(families.size()) + " families (bootstrap over families)"};
  if (detail != nullptr) {
    *detail = {{"families", families.size()},
               {"against_plm", to_json(m)},
               {"against_weighted_plm", to_json(w)},
               {"against_evfold", to_json(e)},
               {"attention_ahead", ahead},
               {"ties", ties},
               {"observed_gap", keys.observed_gap},
               {"interval_contains_observed_gap", contains_observed},
               {"resamples", kPanelResamples},
               {"level", kPanelLevel},
               {"seed", keys.seed}};
  }
  return make_cell(keys.id, keys.statement, est, v, number, rule);
}

}  // namespace claims
}  // namespace potts
