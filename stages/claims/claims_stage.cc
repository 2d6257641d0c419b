#include "stages/claims/claims_stage.h"

#include <cstdio>

#include "lib/claims/claims.h"
#include "lib/core/io.h"

namespace potts {

void run_claims(Stage& st) {
  Config& cfg = st.config();
  const std::vector<std::string> readings = cfg.strings("readings");
  Config reps = cfg.section("data_sets");
  std::map<std::string, std::vector<std::string>> sets_of;
  for (const auto& r : readings) sets_of[r] = reps.strings(r);
  reps.finish();
  const int boot = int(cfg.integer("bootstrap_resamples", 100, 1000000));
  claims::Thresholds t;
  Config th = cfg.section("thresholds");
  t.erec_good = th.number("erec_good", 0.0, 1.0);
  t.erec_bad = th.number("erec_bad", t.erec_good, 1.0);
  th.finish();
  const double protein_margin = cfg.number_open("protein_parity_margin", 0.0, 1.0);
  // The heads sweep on the real family (claims P3 and P4), when configured:
  // which predictors of the score summary P3 compares, and the sweep's
  // configurations with their H and form.
  // Optionally a follow-up ("protein_heads_followup"): P4's rule under an id
  // and statement of its own, over other fits of the configurations.
  claims::ProteinKeys protein_keys;
  std::vector<claims::HeadsConfiguration> heads_sweep, followup;
  claims::HeadsLabel followup_label;
  auto read_configurations = [&](Config& c, const std::string& where) {
    const auto keys = c.strings("configurations");
    const auto heads = c.integers("heads", 1, 4096);
    const auto forms = c.strings("forms");
    if (keys.empty() || heads.size() != keys.size() || forms.size() != keys.size())
      throw StageError(cfg.origin() + ": " + where + ": expected 'configurations', 'heads' and 'forms' of one "
                       "non-zero length (one entry per configuration of the heads sweep)");
    std::vector<claims::HeadsConfiguration> out;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (forms[k] != "factored" && forms[k] != "softmax")
        throw StageError(cfg.origin() + ": " + where + ".forms[" + std::to_string(k) + "]: expected \"factored\" or "
                         "\"softmax\", got \"" + forms[k] + "\"");
      out.push_back({keys[k], int(heads[k]), forms[k] == "factored"});
    }
    return out;
  };
  if (cfg.has("protein_heads")) {
    Config ph = cfg.section("protein_heads");
    protein_keys.p3_factored = ph.string("p3_factored");
    protein_keys.plm = ph.string("plm");
    heads_sweep = read_configurations(ph, "protein_heads");
    ph.finish();
  }
  // Optional: claim P5, the observation's protocol against the PLM on the
  // same conventions (lib/claims/claims.h, observation_claim).
  claims::ObservationKeys observation;
  const bool has_observation = cfg.has("protein_observation");
  if (has_observation) {
    Config po = cfg.section("protein_observation");
    observation.id = po.string("id");
    observation.statement = po.string("statement");
    observation.attention = po.string("attention");
    observation.plm = po.string("plm");
    observation.weighted_plm = po.string("weighted_plm");
    observation.observed_gap = po.number("observed_gap", -1.0, 1.0);
    po.finish();
  }
  if (cfg.has("protein_heads_followup")) {
    if (heads_sweep.empty())
      throw StageError(cfg.origin() + ": protein_heads_followup: expected 'protein_heads' beside it (its PLM)");
    Config pf = cfg.section("protein_heads_followup");
    followup_label.id = pf.string("id");
    followup_label.statement = pf.string("statement");
    followup = read_configurations(pf, "protein_heads_followup");
    pf.finish();
  }
  cfg.finish();

  nlohmann::json s;
  s["table"] = nlohmann::json::array();
  // claims.csv: one row per verdict, with names, so that a spreadsheet or
  // pandas reads it without this code (RFC 4180 quoting).
  auto quoted = [](const std::string& x) {
    std::string q = "\"";
    for (char ch : x) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  std::string csv = "reading,claim,statement,verdict,value,se,basis,number,rule\n";
  auto add_row = [&](const std::string& R, const claims::Cell& c) {
    char num[64];
    std::snprintf(num, sizeof num, "%.10g,%.10g", c.value, c.se);
    csv += R + "," + c.id + "," + quoted(c.statement) + "," + claims::to_string(c.verdict) + "," + num + "," +
           quoted(c.basis) + "," + quoted(c.number) + "," + quoted(c.rule) + "\n";
  };
  auto record = [&](const std::string& R, double, std::size_t, const claims::Cell& c) {
    s[R][c.id] = claims::to_json(c);
    nlohmann::json row = claims::to_json(c);
    row["reading"] = R;
    s["table"].push_back(row);
    add_row(R, c);
  };
  for (std::size_t r = 0; r < readings.size(); ++r) {
    const std::string& R = readings[r];
    std::vector<claims::DataSet> sets;
    for (const auto& d : sets_of.at(R))
      sets.push_back({d, read_json(st.input(d + "_train/summary.json")), read_json(st.input(d + "_perturb/summary.json")),
                      read_json(st.input(d + "_excess/summary.json"))});
    auto cells = claims::training_claims(sets, t);
    // Claim 5 from the experiment around the peak when there is one.
    const std::string pk = st.inputs().count(R + "_peak/summary.json") ? R + "_peak" : R + "_potts";
    for (auto& c : claims::sample_complexity_claims(read_json(st.input(pk + "/summary.json")),
                                                    read_csv(st.input(pk + "/realisations.csv")), st.seed(), boot))
      cells.push_back(c);
    s["claim5_from"][R] = pk;
    s["data_sets"][R] = sets_of.at(R);
    for (std::size_t k = 0; k < cells.size(); ++k) record(R, double(r), k, cells[k]);
  }
  // The initial decay's investigation (optional inputs initial_<variant>).
  for (const auto& [key, path] : st.inputs()) {
    const std::string prefix = "initial_", suffix = "/summary.json";
    if (key.rfind(prefix, 0) != 0 || key.size() <= suffix.size() ||
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string variant = key.substr(prefix.size(), key.size() - prefix.size() - suffix.size());
    s["initial_decay"][variant] = claims::to_json(claims::initial_decay(read_json(path)));
  }
  for (const auto& c : claims::gaussian_claims(read_json(st.input("replica/summary.json")),
                                               read_json(st.input("sim/summary.json")),
                                               read_json(st.input("finite/summary.json"))))
  {
    s["gaussian"][c.id] = claims::to_json(c);
    add_row("gaussian", c);
  }
  // The real protein family (claims P1-P3), when its scores are an input.
  if (st.inputs().count("proteins/summary.json")) {
    const nlohmann::json score = read_json(st.input("proteins/summary.json"));
    for (const auto& c : claims::protein_claims(score, protein_margin, protein_keys)) {
      s["proteins"][c.id] = claims::to_json(c);
      add_row("proteins", c);
    }
    // P3's paired s.e., reported beside its verdict (whose rule keeps its own).
    const nlohmann::json p3 = claims::paired_difference(score, protein_keys.p3_factored, protein_keys.plm);
    if (!p3.is_null()) s["proteins"]["P3"]["paired_se"] = p3.at("standard_error");
    auto heads_row = [&](const std::vector<claims::HeadsConfiguration>& configs, const claims::HeadsLabel& label) {
      const claims::HeadsClaim h = claims::heads_claim(score, protein_keys.plm, configs, protein_margin, label);
      s["proteins"][h.cell.id] = claims::to_json(h.cell);
      s["proteins"][h.cell.id]["smallest_heads"] = h.smallest_heads;
      s["proteins"][h.cell.id]["configurations"] = h.configurations;
      add_row("proteins", h.cell);
      nlohmann::json cs = nlohmann::json::array();
      for (const auto& c : configs) cs.push_back({{"key", c.key}, {"heads", c.heads}, {"paper_form", c.paper_form}});
      return cs;
    };
    if (!heads_sweep.empty()) {
      s["protein_heads"] = {{"p3_factored", protein_keys.p3_factored},
                            {"plm", protein_keys.plm},
                            {"configurations", heads_row(heads_sweep, {})}};
      if (!followup.empty())
        s["protein_heads"]["followup"] = {{"id", followup_label.id},
                                          {"statement", followup_label.statement},
                                          {"configurations", heads_row(followup, followup_label)}};
    }
    if (has_observation) {
      const claims::Cell c = claims::observation_claim(score, protein_margin, observation);
      s["proteins"][c.id] = claims::to_json(c);
      for (const auto& [name, key] : {std::pair<const char*, const std::string&>{"same_conventions", observation.plm},
                                      {"weighted", observation.weighted_plm}})
        s["proteins"][c.id]["paired"][name] = claims::paired_difference(score, observation.attention, key);
      s["protein_observation"] = {{"attention", observation.attention},
                                  {"plm", observation.plm},
                                  {"weighted_plm", observation.weighted_plm},
                                  {"observed_gap", observation.observed_gap}};
      add_row("proteins", c);
    }
    s["protein_parity_margin"] = protein_margin;
  }
  s["readings"] = readings;
  s["thresholds"] = {{"erec_good", t.erec_good}, {"erec_bad", t.erec_bad}};
  s["bootstrap_resamples"] = boot;
  write_text_atomic(st.output("claims.csv"), csv);
  st.write_summary(s);
}

}  // namespace potts
