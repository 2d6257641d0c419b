#include "stages/claims/claims_stage.h"

#include <cstdio>
#include <map>

#include "lib/claims/claims.h"
#include "lib/claims/panel_claim.h"
#include "lib/core/io.h"

namespace potts {

namespace {

// claims.csv, one row per verdict with names, so that a spreadsheet or
// pandas reads it without this code (RFC 4180 quoting).
class ClaimsCsv {
 public:
  void add(const std::string& reading, const claims::Cell& c) {
    char num[64];
    std::snprintf(num, sizeof num, "%.10g,%.10g", c.value, c.se);
    text_ += reading + "," + c.id + "," + quoted(c.statement) + "," + claims::to_string(c.verdict) + "," + num + "," +
             quoted(c.basis) + "," + quoted(c.number) + "," + quoted(c.rule) + "\n";
  }
  const std::string& text() const { return text_; }

 private:
  static std::string quoted(const std::string& x) {
    std::string q = "\"";
    for (char ch : x) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  }
  std::string text_ = "reading,claim,statement,verdict,value,se,basis,number,rule\n";
};

// The Potts claims' configuration: readings, their data sets, thresholds.
struct PottsKeys {
  std::vector<std::string> readings;
  std::map<std::string, std::vector<std::string>> sets_of;
  claims::Thresholds thresholds;
  int bootstrap_resamples = 0;
};

// The real family's claims' configuration (P1-P6), each part optional.
struct ProteinConfig {
  double margin = 0.0;
  claims::ProteinKeys keys;
  std::vector<claims::HeadsConfiguration> heads_sweep, followup;
  claims::HeadsLabel followup_label;
  bool has_observation = false, has_panel = false;
  claims::ObservationKeys observation;
  claims::PanelKeys panel;
};

PottsKeys read_potts_keys(Config& cfg) {
  PottsKeys k;
  k.readings = cfg.strings("readings");
  Config reps = cfg.section("data_sets");
  for (const auto& r : k.readings) k.sets_of[r] = reps.strings(r);
  reps.finish();
  k.bootstrap_resamples = int(cfg.integer("bootstrap_resamples", 100, 1000000));
  Config th = cfg.section("thresholds");
  k.thresholds.erec_good = th.number("erec_good", 0.0, 1.0);
  k.thresholds.erec_bad = th.number("erec_bad", k.thresholds.erec_good, 1.0);
  th.finish();
  return k;
}

// A heads sweep's configurations with their H and form ("where" names the
// section in messages).
std::vector<claims::HeadsConfiguration> read_configurations(Config& c, const std::string& where,
                                                            const std::string& origin) {
  const auto keys = c.strings("configurations");
  const auto heads = c.integers("heads", 1, 4096);
  const auto forms = c.strings("forms");
  if (keys.empty() || heads.size() != keys.size() || forms.size() != keys.size())
    throw StageError(origin + ": " + where +
                     ": expected 'configurations', 'heads' and 'forms' of one "
                     "non-zero length (one entry per configuration of the heads sweep)");
  std::vector<claims::HeadsConfiguration> out;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    if (forms[k] != "factored" && forms[k] != "softmax")
      throw StageError(origin + ": " + where + ".forms[" + std::to_string(k) +
                       "]: expected \"factored\" or "
                       "\"softmax\", got \"" +
                       forms[k] + "\"");
    out.push_back({keys[k], int(heads[k]), forms[k] == "factored"});
  }
  return out;
}

// "protein_heads" (P3, P4) and its optional follow-up under a label of its own.
void read_heads_keys(Config& cfg, ProteinConfig& p) {
  if (cfg.has("protein_heads")) {
    Config ph = cfg.section("protein_heads");
    p.keys.p3_factored = ph.string("p3_factored");
    p.keys.plm = ph.string("plm");
    p.heads_sweep = read_configurations(ph, "protein_heads", cfg.origin());
    ph.finish();
  }
  if (cfg.has("protein_heads_followup")) {
    if (p.heads_sweep.empty())
      throw StageError(cfg.origin() + ": protein_heads_followup: expected 'protein_heads' beside it (its PLM)");
    Config pf = cfg.section("protein_heads_followup");
    p.followup_label.id = pf.string("id");
    p.followup_label.statement = pf.string("statement");
    p.followup = read_configurations(pf, "protein_heads_followup", cfg.origin());
    pf.finish();
  }
}

ProteinConfig read_protein_config(Config& cfg, std::uint64_t seed) {
  ProteinConfig p;
  p.margin = cfg.number_open("protein_parity_margin", 0.0, 1.0);
  read_heads_keys(cfg, p);
  // Claim P5: the observation's protocol against the PLM on its conventions.
  p.has_observation = cfg.has("protein_observation");
  if (p.has_observation) {
    Config po = cfg.section("protein_observation");
    p.observation.id = po.string("id");
    p.observation.statement = po.string("statement");
    p.observation.attention = po.string("attention");
    p.observation.plm = po.string("plm");
    p.observation.weighted_plm = po.string("weighted_plm");
    p.observation.observed_gap = po.number("observed_gap", -1.0, 1.0);
    po.finish();
  }
  // Claim P6: the same over the panel of families (panel/panel.csv).
  p.has_panel = cfg.has("protein_panel");
  if (p.has_panel) {
    Config pp = cfg.section("protein_panel");
    p.panel.id = pp.string("id");
    p.panel.statement = pp.string("statement");
    p.panel.observed_gap = pp.number("observed_gap", -1.0, 1.0);
    p.panel.min_families = int(pp.integer("min_families", 1, 100000));
    p.panel.seed = seed;
    pp.finish();
  }
  return p;
}

// Claims 1-5 for each reading of the data regime.
void potts_claims(Stage& stage, const PottsKeys& k, nlohmann::json& s, ClaimsCsv& csv) {
  s["table"] = nlohmann::json::array();
  for (const std::string& R : k.readings) {
    std::vector<claims::DataSet> sets;
    for (const auto& d : k.sets_of.at(R))
      sets.push_back({d, read_json(stage.input(d + "_train/summary.json")),
                      read_json(stage.input(d + "_perturb/summary.json")),
                      read_json(stage.input(d + "_excess/summary.json"))});
    auto cells = claims::training_claims(sets, k.thresholds);
    // Claim 5 from the experiment around the peak when there is one.
    const std::string pk = stage.inputs().count(R + "_peak/summary.json") ? R + "_peak" : R + "_potts";
    for (auto& c : claims::sample_complexity_claims(read_json(stage.input(pk + "/summary.json")),
                                                    read_csv(stage.input(pk + "/realisations.csv")), stage.seed(),
                                                    k.bootstrap_resamples))
      cells.push_back(c);
    s["claim5_from"][R] = pk;
    s["data_sets"][R] = k.sets_of.at(R);
    for (const auto& c : cells) {
      s[R][c.id] = claims::to_json(c);
      nlohmann::json row = claims::to_json(c);
      row["reading"] = R;
      s["table"].push_back(row);
      csv.add(R, c);
    }
  }
}

// The initial decay's investigation (optional inputs initial_<variant>).
void initial_decay(Stage& stage, nlohmann::json& s) {
  for (const auto& [key, path] : stage.inputs()) {
    const std::string prefix = "initial_", suffix = "/summary.json";
    if (key.rfind(prefix, 0) != 0 || key.size() <= suffix.size() ||
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string variant = key.substr(prefix.size(), key.size() - prefix.size() - suffix.size());
    s["initial_decay"][variant] = claims::to_json(claims::initial_decay(read_json(path)));
  }
}

void gaussian(Stage& stage, nlohmann::json& s, ClaimsCsv& csv) {
  for (const auto& c : claims::gaussian_claims(read_json(stage.input("replica/summary.json")),
                                               read_json(stage.input("sim/summary.json")),
                                               read_json(stage.input("finite/summary.json")))) {
    s["gaussian"][c.id] = claims::to_json(c);
    csv.add("gaussian", c);
  }
}

// Claim P4 (or its follow-up) over a heads sweep; returns its configurations.
nlohmann::json heads_row(const nlohmann::json& score, const ProteinConfig& p,
                         const std::vector<claims::HeadsConfiguration>& configs, const claims::HeadsLabel& label,
                         nlohmann::json& s, ClaimsCsv& csv) {
  const claims::HeadsClaim h = claims::heads_claim(score, p.keys.plm, configs, p.margin, label);
  s["proteins"][h.cell.id] = claims::to_json(h.cell);
  s["proteins"][h.cell.id]["smallest_heads"] = h.smallest_heads;
  s["proteins"][h.cell.id]["configurations"] = h.configurations;
  csv.add("proteins", h.cell);
  nlohmann::json cs = nlohmann::json::array();
  for (const auto& c : configs) cs.push_back({{"key", c.key}, {"heads", c.heads}, {"paper_form", c.paper_form}});
  return cs;
}

void observation(const nlohmann::json& score, const ProteinConfig& p, nlohmann::json& s, ClaimsCsv& csv) {
  const claims::ObservationKeys& o = p.observation;
  const claims::Cell c = claims::observation_claim(score, p.margin, o);
  s["proteins"][c.id] = claims::to_json(c);
  for (const auto& [name, key] :
       {std::pair<const char*, const std::string&>{"same_conventions", o.plm}, {"weighted", o.weighted_plm}})
    s["proteins"][c.id]["paired"][name] = claims::paired_difference(score, o.attention, key);
  s["protein_observation"] = {
      {"attention", o.attention}, {"plm", o.plm}, {"weighted_plm", o.weighted_plm}, {"observed_gap", o.observed_gap}};
  csv.add("proteins", c);
}

// Claims P1-P5 on the real family, from its score summary.
void family_claims(const nlohmann::json& score, const ProteinConfig& p, nlohmann::json& s, ClaimsCsv& csv) {
  for (const auto& c : claims::protein_claims(score, p.margin, p.keys)) {
    s["proteins"][c.id] = claims::to_json(c);
    csv.add("proteins", c);
  }
  // P3's paired s.e., reported beside its verdict (whose rule keeps its own).
  const nlohmann::json p3 = claims::paired_difference(score, p.keys.p3_factored, p.keys.plm);
  if (!p3.is_null()) s["proteins"]["P3"]["paired_se"] = p3.at("standard_error");
  if (!p.heads_sweep.empty()) {
    s["protein_heads"] = {{"p3_factored", p.keys.p3_factored},
                          {"plm", p.keys.plm},
                          {"configurations", heads_row(score, p, p.heads_sweep, {}, s, csv)}};
    if (!p.followup.empty())
      s["protein_heads"]["followup"] = {{"id", p.followup_label.id},
                                        {"statement", p.followup_label.statement},
                                        {"configurations", heads_row(score, p, p.followup, p.followup_label, s, csv)}};
  }
  if (p.has_observation) observation(score, p, s, csv);
}

// The panel's families from its table (the panel stage's panel.csv):
// top-L precision at |i - j| >= 6 of the roles P6 compares.
std::vector<claims::PanelFamily> read_panel(const std::string& path) {
  const auto t = read_csv(path);
  auto column = [&](const std::string& name) -> const std::vector<double>& {
    auto it = t.find(name);
    if (it == t.end()) throw StageError(path + ": no column '" + name + "' (claim P6 reads it; the panel's roles)");
    return it->second;
  };
  const auto& pfam = column("pfam");
  const auto &att = column("attention_L"), &plm = column("plm_L"), &wplm = column("weighted_plm_L"),
             &evf = column("evfold_L");
  std::vector<claims::PanelFamily> f(pfam.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    char id[16];
    std::snprintf(id, sizeof id, "PF%05d", int(pfam[i]));
    f[i] = {id, att[i], plm[i], wplm[i], evf[i]};
  }
  return f;
}

void panel(Stage& stage, const ProteinConfig& p, nlohmann::json& s, ClaimsCsv& csv) {
  nlohmann::json detail;
  const claims::Cell c = claims::panel_claim(read_panel(stage.input("panel/panel.csv")), p.margin, p.panel, &detail);
  s["proteins"][c.id] = claims::to_json(c);
  s["proteins"][c.id]["panel"] = detail;
  csv.add("proteins", c);
}

}  // namespace

void run_claims(Stage& stage) {
  Config& cfg = stage.config();
  const PottsKeys potts = read_potts_keys(cfg);
  const ProteinConfig proteins = read_protein_config(cfg, stage.seed());
  cfg.finish();

  nlohmann::json s;
  ClaimsCsv csv;
  potts_claims(stage, potts, s, csv);
  initial_decay(stage, s);
  gaussian(stage, s, csv);
  // The real protein family (claims P1-P5), when its scores are an input.
  if (stage.inputs().count("proteins/summary.json")) {
    family_claims(read_json(stage.input("proteins/summary.json")), proteins, s, csv);
    s["protein_parity_margin"] = proteins.margin;
  }
  if (proteins.has_panel) panel(stage, proteins, s, csv);
  s["readings"] = potts.readings;
  s["thresholds"] = {{"erec_good", potts.thresholds.erec_good}, {"erec_bad", potts.thresholds.erec_bad}};
  s["bootstrap_resamples"] = potts.bootstrap_resamples;
  write_text_atomic(stage.output("claims.csv"), csv.text());
  stage.write_summary(s);
}

}  // namespace potts
