// Stage diversity/merge: the points of the diversity study (issue 9) as
// tables for the figure and the literate paper, one per colour kind:
//   diversity.csv           U Gaussian (the kind where recovery depends most
//                           on the diversity, SPEC.md section 7)
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
    nlohmann::json s;
    s["points"] = all;
    s["tables"] = {{"diversity.csv", "gaussian"}, {"diversity_identity.csv", "identity"}};
    st.write_summary(s);
  });
}
