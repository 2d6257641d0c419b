#include "stages/proteins/panel_stage.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "lib/core/io.h"
#include "lib/core/rank.h"

namespace potts {

namespace {

double precision(const nlohmann::json& score, const std::string& predictor, const std::string& k,
                 const std::string& origin) {
  const auto& p = score.at("predictors");
  if (!p.contains(predictor))
    throw StageError(origin + ": no predictor '" + predictor + "' (the panel's roles need it for every family)");
  return p.at(predictor).at("precision").at("6+").at(k).at("mean").get<double>();
}

// The descriptive comparison of two roles ("difference": {"of", "minus",
// "by"}): d_f = top-L(of) − top-L(minus) against a column of the table.
struct DifferenceKeys {
  std::string of, minus, by;
};

const char* kUndefined = "n/a: fewer than 3 families or a constant series";

std::string pfam_name(double number) {
  char id[16];
  std::snprintf(id, sizeof id, "PF%05d", int(number));
  return id;
}

// Its median, the extremes, the medians of the lower and upper halves of
// the families by `by` (the middle family of an odd count in neither), and
// Spearman's rho of d_f with `by` (lib/core/rank.h); "n/a" where undefined.
nlohmann::json difference(const std::map<std::string, std::vector<double>>& t, const DifferenceKeys& k) {
  const auto &a = t.at(k.of + "_L"), &b = t.at(k.minus + "_L"), &by = t.at(k.by), &pfam = t.at("pfam");
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = a[i] - b[i];
  nlohmann::json s = {{"of", k.of}, {"minus", k.minus}, {"by", k.by}, {"median", median(d)}};
  const auto lo = std::min_element(d.begin(), d.end()) - d.begin(),
             hi = std::max_element(d.begin(), d.end()) - d.begin();
  s["smallest"] = {{"pfam", pfam_name(pfam[lo])}, {"d", d[lo]}, {k.by, by[lo]}};
  s["largest"] = {{"pfam", pfam_name(pfam[hi])}, {"d", d[hi]}, {k.by, by[hi]}};
  s["ahead"] = std::count_if(d.begin(), d.end(), [](double v) { return v > 0.0; });
  s["behind"] = std::count_if(d.begin(), d.end(), [](double v) { return v < 0.0; });
  std::vector<std::size_t> order(d.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return by[x] < by[y]; });
  const std::size_t half = d.size() / 2;
  std::vector<double> lower, upper;
  for (std::size_t r = 0; r < half; ++r) {
    lower.push_back(d[order[r]]);
    upper.push_back(d[order[d.size() - 1 - r]]);
  }
  s["split"] = median(by);
  s["lower_half_median"] = half ? nlohmann::json(median(lower)) : nlohmann::json(kUndefined);
  s["upper_half_median"] = half ? nlohmann::json(median(upper)) : nlohmann::json(kUndefined);
  s["spearman_rho"] = s["spearman_p"] = kUndefined;
  const bool constant = std::all_of(d.begin(), d.end(), [&](double v) { return v == d[0]; }) ||
                        std::all_of(by.begin(), by.end(), [&](double v) { return v == by[0]; });
  if (d.size() >= 3 && !constant) {
    const RankCorrelation c = spearman(by, d);
    s["spearman_rho"] = c.rho;
    s["spearman_p"] = c.p_two_sided;
  }
  return s;
}

std::vector<std::string> family_ids(const Stage& stage) {
  std::vector<std::string> ids;
  for (const auto& [key, path] : stage.inputs())
    if (key.rfind("score_", 0) == 0 && key.size() > 19 && key.substr(key.size() - 13) == "/summary.json")
      ids.push_back(key.substr(6, key.size() - 6 - 13));
  if (ids.empty()) throw StageError("no input 'score_<id>/summary.json': the panel needs its families' scores");
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

void run_proteins_panel(Stage& stage) {
  Config& cfg = stage.config();
  Config roles_cfg = cfg.section("roles");
  std::vector<std::pair<std::string, std::string>> roles;
  for (const auto& [role, _] : roles_cfg.json().items()) roles.push_back({role, roles_cfg.string(role)});
  roles_cfg.finish();
  Config dc = cfg.section("difference");
  const DifferenceKeys dk{dc.string("of"), dc.string("minus"), dc.choice("by", {"n_eff_per_column", "n_eff", "L"})};
  dc.finish();
  cfg.finish();
  if (roles.empty()) throw StageError(cfg.origin() + ": roles: expected at least one {role: predictor}");
  for (const auto& role : {dk.of, dk.minus})
    if (std::none_of(roles.begin(), roles.end(), [&](const auto& r) { return r.first == role; }))
      throw StageError(cfg.origin() + ": difference: '" + role + "' is not one of the roles");

  const std::vector<std::string> ids = family_ids(stage);
  std::vector<std::string> columns = {"pfam", "L", "sequences", "n_eff", "n_eff_per_column", "contacts", "random"};
  for (const auto& [role, _] : roles)
    for (const char* k : {"_L", "_L2", "_L5"}) columns.push_back(role + k);
  CsvTable table(columns);
  std::map<std::string, std::vector<double>> by_column;
  nlohmann::json families = nlohmann::json::array();
  for (const auto& id : ids) {
    const std::string fpath = stage.input("family_" + id + "/summary.json");
    const std::string spath = stage.input("score_" + id + "/summary.json");
    const nlohmann::json fam = read_json(fpath), score = read_json(spath);
    if (id.size() != 7 || id.rfind("pf", 0) != 0 || !std::all_of(id.begin() + 2, id.end(), ::isdigit))
      throw StageError("input 'score_" + id + "': expected a family id such as pf00013");
    const double L = fam.at("L").get<double>();
    std::vector<double> row = {std::stod(id.substr(2)),
                               L,
                               fam.at("sequences").get<double>(),
                               fam.at("n_eff").get<double>(),
                               fam.at("n_eff").get<double>() / L,
                               score.at("contacts").get<double>(),
                               score.at("random_precision_6+").get<double>()};
    for (const auto& [role, predictor] : roles)
      for (const char* k : {"L", "L/2", "L/5"}) row.push_back(precision(score, predictor, k, spath));
    for (std::size_t c = 0; c < columns.size(); ++c) by_column[columns[c]].push_back(row[c]);
    table.row(row);
    families.push_back(id);
  }
  table.save(stage.output("panel.csv"));
  nlohmann::json s;
  s["families"] = families;
  s["count"] = ids.size();
  for (const auto& [role, predictor] : roles)
    s["roles"][role] = {{"predictor", predictor}, {"median_top_L", median(by_column.at(role + "_L"))}};
  s["difference"] = difference(by_column, dk);
  stage.write_summary(s);
}

}  // namespace potts
