#include "stages/proteins/panel_stage.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "lib/core/io.h"

namespace potts {

namespace {

double precision(const nlohmann::json& score, const std::string& predictor, const std::string& k,
                 const std::string& origin) {
  const auto& p = score.at("predictors");
  if (!p.contains(predictor))
    throw StageError(origin + ": no predictor '" + predictor + "' (the panel's roles need it for every family)");
  return p.at(predictor).at("precision").at("6+").at(k).at("mean").get<double>();
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

}  // namespace

void run_proteins_panel(Stage& st) {
  Config& cfg = st.config();
  Config roles_cfg = cfg.section("roles");
  std::vector<std::pair<std::string, std::string>> roles;
  for (const auto& [role, _] : roles_cfg.json().items()) roles.push_back({role, roles_cfg.string(role)});
  roles_cfg.finish();
  cfg.finish();
  if (roles.empty()) throw StageError(cfg.origin() + ": roles: expected at least one {role: predictor}");

  std::vector<std::string> ids;
  for (const auto& [key, path] : st.inputs())
    if (key.rfind("score_", 0) == 0 && key.size() > 19 && key.substr(key.size() - 13) == "/summary.json")
      ids.push_back(key.substr(6, key.size() - 6 - 13));
  if (ids.empty()) throw StageError("no input 'score_<id>/summary.json': the panel needs its families' scores");
  std::sort(ids.begin(), ids.end());

  std::vector<std::string> columns = {"pfam", "L", "sequences", "n_eff", "n_eff_per_column", "contacts", "random"};
  for (const auto& [role, _] : roles)
    for (const char* k : {"_L", "_L2", "_L5"}) columns.push_back(role + k);
  CsvTable table(columns);
  std::map<std::string, std::vector<double>> top_l;
  nlohmann::json families = nlohmann::json::array();
  for (const auto& id : ids) {
    const std::string fpath = st.input("family_" + id + "/summary.json");
    const std::string spath = st.input("score_" + id + "/summary.json");
    const nlohmann::json fam = read_json(fpath), score = read_json(spath);
    if (id.size() != 7 || id.rfind("pf", 0) != 0 || !std::all_of(id.begin() + 2, id.end(), ::isdigit))
      throw StageError("input 'score_" + id + "': expected a family id such as pf00013");
    const double L = fam.at("L").get<double>();
    std::vector<double> row = {std::stod(id.substr(2)), L, fam.at("sequences").get<double>(),
                               fam.at("n_eff").get<double>(), fam.at("n_eff").get<double>() / L,
                               score.at("contacts").get<double>(), score.at("random_precision_6+").get<double>()};
    for (const auto& [role, predictor] : roles) {
      for (const char* k : {"L", "L/2", "L/5"}) row.push_back(precision(score, predictor, k, spath));
      top_l[role].push_back(row[row.size() - 3]);
    }
    table.row(row);
    families.push_back(id);
  }
  table.save(st.output("panel.csv"));
  nlohmann::json s;
  s["families"] = families;
  s["count"] = ids.size();
  for (const auto& [role, predictor] : roles)
    s["roles"][role] = {{"predictor", predictor}, {"median_top_L", median(top_l[role])}};
  st.write_summary(s);
}

}  // namespace potts
