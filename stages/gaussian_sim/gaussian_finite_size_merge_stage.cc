#include "stages/gaussian_sim/gaussian_finite_size_merge_stage.h"

#include <cmath>
#include <map>

#include "lib/core/stats.h"
#include "lib/gaussian/finite_size.h"

namespace potts {

namespace {

struct SizeData {
  double D = 0;
  nlohmann::json summary;
  std::map<std::string, std::vector<double>> rows;  // realisations.csv
};

// The realisations of `column` at α.
std::vector<double> values_at(const SizeData& s, double alpha, const std::string& column) {
  std::vector<double> v;
  const auto& a = s.rows.at("alpha");
  const auto& c = s.rows.at(column);
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] == alpha) v.push_back(c[i]);
  return v;
}

// The sizes' summaries and realisations (inputs d0, d1, ...), in increasing
// D, each simulated at the same number of alpha values.
std::vector<SizeData> read_sizes(Stage& stage, std::int64_t sizes) {
  std::vector<SizeData> data;
  for (std::int64_t k = 0; k < sizes; ++k) {
    const std::string key = "d" + std::to_string(k);
    SizeData s;
    s.summary = read_json(stage.input(key + "/summary.json"));
    s.D = s.summary.at("D").get<double>();
    s.rows = read_csv(stage.input(key + "/realisations.csv"));
    if (!data.empty() && !(s.D > data.back().D))
      throw StageError(stage.input(key + "/summary.json") + ": key 'D': sizes must be given in increasing D");
    data.push_back(std::move(s));
  }
  for (const auto& s : data)
    if (s.summary.at("points").size() != data.front().summary.at("points").size())
      throw StageError("gaussian_finite_size_merge: the sizes were simulated at different alpha values");
  return data;
}

}  // namespace

void run_gaussian_finite_size_merge(Stage& stage) {
  Config& cfg = stage.config();
  const auto sizes = cfg.integer("sizes", 3, 100);
  const int order = int(cfg.integer("order", 1, 2));
  const int resamples = int(cfg.integer("resamples", 100, 1000000));

  const std::vector<SizeData> data = read_sizes(stage, sizes);
  const nlohmann::json& points0 = data.front().summary.at("points");

  const std::map<std::string, std::string> theory_key = {{"eps_g", "theory_eps_g"}, {"m", "theory_m"}};
  CsvTable per_size({"alpha", "statistic", "D", "theory", "mean", "se", "deviation", "deviation_se"});
  CsvTable extrap({"alpha", "statistic", "c", "c_se", "c_lo", "c_hi", "a", "b", "chi2", "dof"});
  const int stat_code_eps = 0, stat_code_m = 1;
  nlohmann::json fits = nlohmann::json::array();
  std::vector<double> chi2(data.size(), 0.0), z_exact(data.size(), 0.0), m_exact(data.size(), 0.0);
  std::vector<int> chi2_terms(data.size(), 0);
  for (std::size_t k = 0; k < points0.size(); ++k) {
    const double alpha = points0[k].at("alpha").get<double>();
    for (const auto& [stat, tkey] : theory_key) {
      std::vector<gaussian::SizeSample> samples;
      for (std::size_t i = 0; i < data.size(); ++i) {
        const auto& p = data[i].summary.at("points")[k];
        if (p.at("alpha").get<double>() != alpha)
          throw StageError("gaussian_finite_size_merge: size D = " + format_number(data[i].D, 6) +
                           " has other alpha values");
        samples.push_back({data[i].D, p.at(tkey).get<double>(), values_at(data[i], alpha, stat)});
        const MeanSe m = mean_se(samples.back().values);
        if (stat == "eps_g") {
          chi2[i] += std::pow((m.mean - samples.back().theory) / m.se, 2);
          ++chi2_terms[i];
          if (p.contains("exact_eps_g"))
            z_exact[i] = std::max(z_exact[i], std::abs(m.mean - p.at("exact_eps_g").get<double>()) / m.se);
        } else if (p.contains("exact_m")) {
          // For λ → 0 and n > D, m = ρ for every design: no variance to
          // scale by, so the relative difference (λ's bias) is reported.
          m_exact[i] = std::max(m_exact[i], std::abs(m.mean / p.at("exact_m").get<double>() - 1));
        }
      }
      const auto r = gaussian::extrapolate(samples, order, resamples, stage.seed() + k);
      const double code = stat == "eps_g" ? stat_code_eps : stat_code_m;
      for (std::size_t i = 0; i < samples.size(); ++i) {
        const MeanSe m = mean_se(samples[i].values);
        per_size.row({alpha, code, samples[i].D, samples[i].theory, m.mean, m.se, r.deviation[i], r.deviation_se[i]});
      }
      extrap.row({alpha, code, r.fit.c, r.c_se, r.c_lo, r.c_hi, r.fit.a, r.fit.b, r.fit.chi2, double(r.fit.dof)});
      fits.push_back({{"alpha", alpha},
                      {"statistic", stat},
                      {"c", r.fit.c},
                      {"c_se", r.c_se},
                      {"c_lo", r.c_lo},
                      {"c_hi", r.c_hi},
                      {"a", r.fit.a},
                      {"b", r.fit.b},
                      {"chi2", r.fit.chi2},
                      {"dof", r.fit.dof},
                      {"deviation", r.deviation},
                      {"deviation_se", r.deviation_se}});
    }
  }
  per_size.save(stage.output("finite_size.csv"));
  extrap.save(stage.output("extrapolation.csv"));

  nlohmann::json s;
  s["statistic_codes"] = {{"eps_g", stat_code_eps}, {"m", stat_code_m}};
  s["order"] = order;
  s["resamples"] = resamples;
  s["fits"] = fits;
  s["sizes"] = nlohmann::json::array();
  for (std::size_t i = 0; i < data.size(); ++i)
    s["sizes"].push_back({{"D", data[i].D},
                          {"realisations", data[i].summary.at("realisations")},
                          {"chi2_eps_vs_theory", chi2[i]},
                          {"chi2_terms", chi2_terms[i]},
                          {"max_abs_z_eps_vs_exact", z_exact[i]},
                          {"max_rel_m_vs_exact", m_exact[i]}});
  s["smallest"] = s["sizes"].front();
  s["largest"] = s["sizes"].back();
  stage.write_summary(s);
}

}  // namespace potts
