// Stage diversity/merge: the points of the diversity study as
// tables for the figure and the literate paper, one per colour kind:
//   diversity.csv           U Gaussian (the kind where recovery depends most
//                           on the diversity, paper/spec.md §7)
//   diversity_identity.csv  U identity (the standard Potts model)
// columns hamming (achieved, training set), beta, eps_star, fa_gap_mean,
// fa_gap_se, fa_erec_mean, fa_erec_se, fa_stall_fraction, plm_gap, plm_erec,
// then target_hamming, fa_best_gap, fa_best_erec, plm_erec_zero_sum;
// rows by decreasing Hamming distance. summary.json holds every point.
#include <algorithm>
#include <map>

#include "lib/core/stage.h"

using namespace potts;

int main(int argc, char** argv) {
  return run_stage("diversity_merge", "tables of the diversity study", argc, argv, [](Stage& st) {
    Config& cfg = st.config();
    const auto points = cfg.integer("points", 1, 1000);
    cfg.finish();
    const std::vector<std::string> cols = {"hamming",      "beta",         "eps_star",          "fa_gap_mean",
                                           "fa_gap_se",    "fa_erec_mean", "fa_erec_se",        "fa_stall_fraction",
                                           "plm_gap",      "plm_erec",     "target_hamming",    "fa_best_gap",
                                           "fa_best_erec", "plm_erec_zero_sum"};
    std::map<std::string, std::vector<nlohmann::json>> by_kind;
    nlohmann::json all = nlohmann::json::array();
    for (int k = 0; k < points; ++k) {
      auto s = nlohmann::json::parse(read_text(st.input("p" + std::to_string(k) + "/summary.json")));
      by_kind[s.at("colour_kind").get<std::string>()].push_back(s);
      all.push_back(s);
    }
    for (const auto& kind : {std::string("gaussian"), std::string("identity")}) {
      auto rows = by_kind[kind];
      std::sort(rows.begin(), rows.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
        return a.at("hamming").get<double>() > b.at("hamming").get<double>();
      });
      CsvTable t(cols);
      for (auto& s : rows) {
        std::vector<double> v;
        for (auto& c : cols) v.push_back(s.at(c).is_null() ? -1.0 : s.at(c).get<double>());
        t.row(v);
      }
      t.save(st.output(kind == "gaussian" ? "diversity.csv" : "diversity_identity.csv"));
    }
    // Which data sets are degenerate (test/train overlap or disagreeing
    // independent chains, lib/potts/diagnostics.h), per colour kind.
    nlohmann::json quality = nlohmann::json::object();
    for (const auto& [kind, rows] : by_kind) {
      int degenerate = 0;
      double lo = 1.0, hi = 0.0;
      for (const auto& r : rows) {
        if (!r.contains("data_diagnostics")) continue;
        const auto& d = r.at("data_diagnostics");
        degenerate += d.at("degenerate").get<bool>();
        lo = std::min(lo, d.at("test_in_train_share").get<double>());
        hi = std::max(hi, d.at("test_in_train_share").get<double>());
      }
      quality[kind] = {{"points", rows.size()}, {"degenerate", degenerate}, {"min_test_in_train_share", lo},
                       {"max_test_in_train_share", hi}};
    }
    nlohmann::json s;
    s["points"] = all;
    s["data_quality"] = quality;
    s["tables"] = {{"diversity.csv", "gaussian"}, {"diversity_identity.csv", "identity"}};
    st.write_summary(s);
  });
}
