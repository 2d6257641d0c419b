#include "stages/claims/claims_stage.h"

#include "lib/claims/claims.h"
#include "lib/core/io.h"

namespace potts {

void run_claims(Stage& st) {
  Config& cfg = st.config();
  const std::vector<std::string> readings = cfg.strings("readings");
  const int boot = int(cfg.integer("bootstrap_resamples", 100, 1000000));
  claims::Thresholds t;
  Config th = cfg.section("thresholds");
  t.gap_good = th.number("gap_good", 0.0, 10.0);
  t.gap_bad = th.number("gap_bad", t.gap_good, 10.0);
  t.erec_good = th.number("erec_good", 0.0, 1.0);
  t.erec_bad = th.number("erec_bad", t.erec_good, 1.0);
  th.finish();
  cfg.finish();

  nlohmann::json s;
  s["table"] = nlohmann::json::array();
  CsvTable csv({"reading", "claim", "verdict", "value", "se"});
  auto code = [](claims::Verdict v) {
    return v == claims::Verdict::kHolds ? 0.0 : v == claims::Verdict::kWeak ? 1.0 : 2.0;
  };
  for (std::size_t r = 0; r < readings.size(); ++r) {
    const std::string& R = readings[r];
    // Claim 5 from the experiment around the peak when there is one.
    const std::string pk = st.inputs().count(R + "_peak/summary.json") ? R + "_peak" : R + "_potts";
    const auto cells = claims::potts_claims(
        read_json(st.input(R + "_train/summary.json")), read_json(st.input(R + "_perturb/summary.json")),
        read_json(st.input(pk + "/summary.json")), read_csv(st.input(pk + "/realisations.csv")), t, st.seed(), boot);
    s["claim5_from"][R] = pk;
    for (std::size_t k = 0; k < cells.size(); ++k) {
      s[R][cells[k].id] = claims::to_json(cells[k]);
      nlohmann::json row = claims::to_json(cells[k]);
      row["reading"] = R;
      s["table"].push_back(row);
      csv.row({double(r), double(k), code(cells[k].verdict), cells[k].value, cells[k].se});
    }
  }
  for (const auto& c :
       claims::gaussian_claims(read_json(st.input("replica/summary.json")), read_json(st.input("sim/summary.json"))))
    s["gaussian"][c.id] = claims::to_json(c);
  s["readings"] = readings;
  s["thresholds"] = {
      {"gap_good", t.gap_good}, {"gap_bad", t.gap_bad}, {"erec_good", t.erec_good}, {"erec_bad", t.erec_bad}};
  s["bootstrap_resamples"] = boot;
  csv.save(st.output("claims.csv"));
  st.write_summary(s);
}

}  // namespace potts
