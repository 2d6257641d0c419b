#include "stages/proteins/score_stage.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <sstream>

#include "lib/core/io.h"
#include "lib/core/stats.h"
#include "lib/proteins/contacts.h"
#include "lib/proteins/paired.h"
#include "stages/proteins/family_stage.h"
#include "stages/proteins/fit_summary.h"

namespace potts {

using namespace proteins;

namespace {

// The predictors in the order tables and figures list them; then the
// coupling models of the couplings stage ("cm_<name>"), by name.
const std::vector<std::string> kOrder = {"factored", "vanilla1", "vanilla3", "plm", "evfold", "psicov"};
const std::string kCouplingPrefix = "cm_";

bool is_coupling_model(const std::string& predictor) {
  return predictor.size() > kCouplingPrefix.size() &&
         predictor.compare(0, kCouplingPrefix.size(), kCouplingPrefix) == 0;
}

// Every predictor with runs, kOrder first, then the coupling models.
template <class Runs>
std::vector<std::string> predictor_order(const Runs& runs) {
  std::vector<std::string> order;
  for (const std::string& p : kOrder)
    if (runs.count(p)) order.push_back(p);
  for (const auto& [p, _] : runs)
    if (is_coupling_model(p)) order.push_back(p);
  return order;
}

using Pairs = std::vector<std::pair<arma::uword, arma::uword>>;

struct Run {
  std::string key;                          // input key, e.g. "factored_s2"
  int seed = 0;                             // 0: a deterministic predictor
  std::map<std::string, arma::mat> scores;  // "counted", "layer_<k>"
  Pairs ranked;                             // the counted scores' pairs with |i − j| ≥ 6, best first
  nlohmann::json summary;
};

// "<predictor>_s<seed>" or "<predictor>".
std::pair<std::string, int> parse_key(const std::string& key) {
  const auto p = key.rfind("_s");
  if (p != std::string::npos && p + 2 < key.size() && key.find_first_not_of("0123456789", p + 2) == std::string::npos)
    return {key.substr(0, p), std::stoi(key.substr(p + 2))};
  return {key, 0};
}

struct Top {
  const char* name;
  int separation;   // minimum |i − j|
  double fraction;  // of L
};
const Top kTops[] = {{"L", 6, 1.0},  {"L/2", 6, 0.5},  {"L/5", 6, 0.2},
                     {"L", 24, 1.0}, {"L/2", 24, 0.5}, {"L/5", 24, 0.2}};

std::string fixed6(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", x);
  return buf;
}

std::string separation_name(int s) { return std::to_string(s) + "+"; }

// Whether the pair of residue numbers i, j (either order) is a contact.
bool is_contact(const std::set<std::pair<int, int>>& truth, int i, int j) {
  return truth.count({std::min(i, j), std::max(i, j)}) > 0;
}

// Precision of the top k of `ranked` (pairs of columns, best first), for
// k = 1..max_k (fewer if there are fewer pairs): the precision at top k,
// for every k from one ranking.
std::vector<double> precision_curve(const Pairs& ranked, const std::vector<int>& numbers,
                                    const std::set<std::pair<int, int>>& truth, std::size_t max_k) {
  std::vector<double> curve;
  std::size_t hits = 0;
  for (std::size_t k = 1; k <= std::min(max_k, ranked.size()); ++k) {
    hits += is_contact(truth, numbers[ranked[k - 1].first], numbers[ranked[k - 1].second]);
    curve.push_back(double(hits) / double(k));
  }
  return curve;
}

// The stage's configuration (score_stage.h).
struct ScoreConfig {
  std::string origin;
  int map_seed = 1;
  std::size_t curve_max_k = 1;
  // A second contact map: the best coupling model (highest mean top-L among
  // the predictors whose names start with one of best_among) above the
  // diagonal and map_reference below.
  std::vector<std::string> best_among;
  std::string map_reference;
  // The heads sweep's tables ({series: predictor prefix}) and the baselines
  // drawn as lines across them.
  std::vector<std::pair<std::string, std::string>> sweep_series;
  std::vector<std::string> sweep_baselines;
  nlohmann::json aliases = nlohmann::json::object();        // {name: predictor}
  std::vector<std::pair<std::string, std::string>> paired;  // [A, B]: top-L(A) − top-L(B)
};

ScoreConfig read_score_config(Config& cfg) {
  ScoreConfig c;
  c.origin = cfg.origin();
  c.map_seed = int(cfg.integer("map_seed", 1, 1000000));
  c.curve_max_k = std::size_t(cfg.integer("curve_max_k", 1, 1000000));
  if (cfg.has("best_among")) {
    c.best_among = cfg.strings("best_among");
    c.map_reference = cfg.string("map_reference");
  }
  if (cfg.has("sweep_series")) {
    Config ss = cfg.section("sweep_series");
    std::vector<std::string> names;
    for (const auto& [name, _] : ss.json().items()) names.push_back(name);
    for (const auto& name : names) c.sweep_series.push_back({name, ss.string(name)});
    ss.finish();
    c.sweep_baselines = cfg.strings("sweep_baselines");
  }
  if (cfg.has("aliases")) c.aliases = cfg.value("aliases");
  if (!c.aliases.is_object()) throw StageError(cfg.origin() + ": aliases: expected an object {name: predictor}");
  if (cfg.has("paired")) {
    const nlohmann::json& pj = cfg.value("paired");
    if (!pj.is_array()) throw StageError(cfg.origin() + ": paired: expected an array of [predictor, predictor]");
    for (const auto& e : pj) {
      if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_string())
        throw StageError(cfg.origin() + ": paired: expected [predictor, predictor], got " + e.dump());
      c.paired.push_back({e[0].get<std::string>(), e[1].get<std::string>()});
    }
  }
  cfg.finish();
  return c;
}

using Runs = std::map<std::string, std::vector<Run>>;

// One input run: its summary, its score matrices (a vanilla model's layers
// too), each L x L and finite, and its ranking at |i − j| ≥ 6.
Run read_run(const Stage& stage, const std::string& key, const std::string& path, const FamilyData& f) {
  const arma::uword L = f.train.L;
  Run r;
  r.key = key.substr(0, key.find('/'));
  const auto [predictor, seed] = parse_key(r.key);
  if (std::find(kOrder.begin(), kOrder.end(), predictor) == kOrder.end() && !is_coupling_model(predictor))
    throw StageError("input '" + key + "': unknown predictor '" + predictor +
                     "' (expected one of factored, "
                     "vanilla1, vanilla3, plm, evfold, psicov, or cm_<name> for a coupling model, with _s<seed> "
                     "for trained models)");
  r.seed = seed;
  r.summary = read_json(stage.input(r.key + "/summary.json"));
  r.scores["counted"] = h5_read_matrix(path, "scores");
  for (int k = 1; k <= 3; ++k) {
    const std::string name = "layer_" + std::to_string(k);
    if (r.summary.value("model", "") == "vanilla" && k <= r.summary.value("layers", 0))
      r.scores[name] = h5_read_matrix(path, name);
  }
  for (const auto& [name, S] : r.scores) {
    if (S.n_rows != L || S.n_cols != L)
      throw StageError(path + ": '" + name + "' is " + std::to_string(S.n_rows) + " x " + std::to_string(S.n_cols) +
                       ", expected " + std::to_string(L) + " x " + std::to_string(L) + " (the family's columns)");
    h5_check_finite(path, name, S);
  }
  r.ranked = ranked_pairs(r.scores.at("counted"), f.residues, 6);
  return r;
}

// Every input run (<key>/scores.h5), by predictor, each predictor's runs in
// seed order.
Runs read_runs(const Stage& stage, const FamilyData& f) {
  Runs runs;
  for (const auto& [key, path] : stage.inputs()) {
    const auto slash = key.find('/');
    if (key.substr(slash + 1) != "scores.h5" || key.substr(0, slash) == "family") continue;
    Run r = read_run(stage, key, path, f);
    runs[parse_key(r.key).first].push_back(std::move(r));
  }
  for (auto& [p, rs] : runs)
    std::sort(rs.begin(), rs.end(), [](const Run& a, const Run& b) { return a.seed < b.seed; });
  return runs;
}

// top_pairs.csv: every run's top L pairs, marked when a structure is known.
void write_top_pairs(Stage& stage, Runs& runs, const FamilyData& f) {
  const arma::uword L = f.train.L;
  std::ostringstream top;
  top << "predictor,seed,rank,i,j,score,contact\n";
  for (const std::string& p : predictor_order(runs)) {
    for (const Run& r : runs[p]) {
      const arma::mat& S = r.scores.at("counted");
      const Pairs& pairs = r.ranked;
      for (std::size_t t = 0; t < std::min<std::size_t>(L, pairs.size()); ++t) {
        const int i = f.residues[pairs[t].first], j = f.residues[pairs[t].second];
        char score[32];
        std::snprintf(score, sizeof score, "%.6g", S(pairs[t].first, pairs[t].second));
        top << p << ',' << r.seed << ',' << t + 1 << ',' << i << ',' << j << ',' << score << ','
            << (f.has_structure ? (is_contact(f.contacts, i, j) ? "1" : "0") : "") << '\n';
      }
    }
  }
  write_text_atomic(stage.output("top_pairs.csv"), top.str());
}

nlohmann::json mean_of(const std::vector<double>& x) {
  const MeanSe ms = mean_se(x);
  return nlohmann::json{{"mean", ms.mean}, {"se_seeds", ms.se}, {"per_run", x}};
}

// What the runs' summaries and curves say of their fits: losses, a coupling
// fit's objective, attention's spread, the lowest test loss on the curve.
nlohmann::json fit_facts(const Stage& stage, const std::vector<Run>& rs) {
  nlohmann::json pj;
  pj["runs"] = rs.size();
  std::vector<double> losses, train_losses, curve_minima, objectives, qk_rms, largest_weights, row_max;
  for (const Run& r : rs) {
    pj["seeds"].push_back(r.seed);
    if (r.summary.contains("test_loss")) losses.push_back(r.summary.at("test_loss").get<double>());
    for (const char* k : {"final_train_loss", "final_train_loss_all_positions", "train_loss"})
      if (r.summary.contains(k)) {
        train_losses.push_back(r.summary.at(k).get<double>());
        break;
      }
    if (is_coupling_fit(r.summary)) objectives.push_back(r.summary.at("objective").get<double>());
    // The observation's protocol: the median over rows of each row's largest weight.
    if (r.summary.contains("attention_maps")) {
      row_max.push_back(r.summary.at("attention_maps").at("median_row_max").get<double>());
      pj["attention_uniform_weight"] = r.summary.at("attention_maps").at("uniform_weight");
    }
    if (r.summary.contains("attention")) {
      qk_rms.push_back(r.summary.at("attention").at("query_key_rms").get<double>());
      largest_weights.push_back(r.summary.at("attention").at("largest_weight").get<double>());
      pj["attention_uniform_weight"] = r.summary.at("attention").at("uniform_weight");
    }
    // The lowest test loss the learning curve passed through (overfitting
    // shows as a final loss above it).
    const std::string curves = r.key + "/curves.csv";
    if (stage.inputs().count(curves) && r.summary.value("model", "") != "plm" && !is_coupling_fit(r.summary)) {
      const auto c = read_csv(stage.input(curves));
      const auto& t = csv_column(c, stage.input(curves), "test_loss");
      if (!t.empty()) curve_minima.push_back(*std::min_element(t.begin(), t.end()));
    }
  }
  if (!losses.empty()) pj["test_loss"] = mean_of(losses);
  if (!train_losses.empty()) pj["train_loss"] = mean_of(train_losses);
  if (!curve_minima.empty()) pj["lowest_test_loss_on_curve"] = mean_of(curve_minima);
  if (!objectives.empty()) {  // with the range over seeds (0 for one run)
    pj["objective"] = mean_of(objectives);
    pj["objective"]["spread"] = *std::max_element(objectives.begin(), objectives.end()) -
                                *std::min_element(objectives.begin(), objectives.end());
  }
  if (!qk_rms.empty()) pj["attention_query_key_rms"] = mean_of(qk_rms);
  if (!largest_weights.empty()) pj["attention_largest_weight"] = mean_of(largest_weights);
  if (!row_max.empty()) pj["attention_median_row_max"] = mean_of(row_max);
  return pj;
}

// The precision cells of one score matrix kind (`name`: "counted" or a
// vanilla layer) over a predictor's runs, each row also into `table`.
void precision_cells(const std::string& p, const std::string& name, const std::vector<Run>& rs, const FamilyData& f,
                     std::ostringstream& table, nlohmann::json& pj) {
  const arma::uword L = f.train.L;
  // One ranking per run and separation serves every top k.
  std::map<int, std::vector<std::vector<double>>> curves_of;
  for (int separation : {6, 24})
    for (const Run& r : rs)
      curves_of[separation].push_back(precision_curve(
          name == "counted" && separation == 6 ? r.ranked : ranked_pairs(r.scores.at(name), f.residues, separation),
          f.residues, f.contacts, L));
  for (const Top& t : kTops) {
    const std::size_t k = std::max<std::size_t>(1, std::size_t(std::floor(t.fraction * double(L))));
    std::vector<double> per_run;
    for (std::size_t n = 0; n < rs.size(); ++n) {
      const auto& curve = curves_of.at(t.separation)[n];
      if (curve.size() < k)
        throw StageError("the family has " + std::to_string(curve.size()) + " pairs with |i − j| ≥ " +
                         std::to_string(t.separation) + ", fewer than the top " + std::to_string(k) + " to score");
      const double prec = curve[k - 1];
      per_run.push_back(prec);
      table << p << ',' << rs[n].seed << ',' << name << ',' << separation_name(t.separation) << ',' << t.name << ','
            << k << ',' << fixed6(prec) << '\n';
    }
    const MeanSe ms = mean_se(per_run);
    const double m = ms.mean;
    const double se_seeds = per_run.size() >= 2 ? ms.se : 0.0;  // one run: a deterministic predictor
    const double se_binomial = std::sqrt(m * (1.0 - m) / double(k));
    nlohmann::json cell = {{"k", k},
                           {"mean", m},
                           {"se_seeds", se_seeds},
                           {"se_binomial", se_binomial},
                           {"se", std::sqrt(se_seeds * se_seeds + se_binomial * se_binomial)},
                           {"per_run", per_run}};
    pj[name == "counted" ? "precision" : "layers"][name == "counted" ? "" : name][separation_name(t.separation)]
      [t.name] = cell;
  }
}

// Every predictor's summary (fit facts, precision cells, a coupling model's
// description); precision.csv's rows.
nlohmann::json score_predictors(Stage& stage, Runs& runs, const FamilyData& f) {
  std::ostringstream table;
  table << "predictor,seed,scores,separation,top,k,precision\n";
  nlohmann::json predictors = nlohmann::json::object();
  for (const std::string& p : predictor_order(runs)) {
    const auto& rs = runs[p];
    nlohmann::json pj = fit_facts(stage, rs);
    for (const auto& [name, _] : rs.front().scores) precision_cells(p, name, rs, f, table, pj);
    if (pj["precision"].contains("")) pj["precision"] = pj["precision"][""];
    pj["scores"] = rs.front().summary.value("scores", "");
    // A coupling model's form, size and fit (the couplings stage's summary).
    if (is_coupling_model(p))
      for (const char* k : {"description", "form",     "heads",  "head_dim",      "value_rank",         "fields",
                            "symmetrise",  "weights",  "fit_on", "fit_sequences", "parameters",         "lambda_h",
                            "lambda_c",    "lambda_w", "lambda", "optimiser",     "test_loss_held_out", "gap",
                            "products",    "adamw"})
        if (rs.front().summary.contains(k)) pj[k] = rs.front().summary.at(k);
    predictors[p] = pj;
  }
  write_text_atomic(stage.output("precision.csv"), table.str());
  return predictors;
}

// The heads sweep: sweep_<series>.csv (top-L per run against H and the
// parameter count) and sweep_baselines.csv (each baseline as a line a factor
// 1.5 beyond the sweep's ends).
void write_sweep(Stage& stage, const ScoreConfig& c, Runs& runs, nlohmann::json& predictors) {
  double h_lo = 0, h_hi = 0, n_lo = 0, n_hi = 0;
  bool first = true;
  for (const auto& [series, prefix] : c.sweep_series) {
    CsvTable t({"heads", "parameters", "seed", "top_L"});
    std::size_t rows = 0;
    for (const std::string& p : predictor_order(runs)) {
      if (p.rfind(prefix, 0) != 0) continue;
      const nlohmann::json& pj = predictors[p];
      if (!pj.contains("heads") || !pj["heads"].is_number() || !pj.contains("parameters"))
        throw StageError("sweep series '" + series + "': predictor '" + p +
                         "' is not a factored coupling model "
                         "(its summary has no heads)");
      const double h = pj["heads"].get<double>(), n = pj["parameters"].get<double>();
      const auto& cell = pj["precision"]["6+"]["L"]["per_run"];
      for (std::size_t k = 0; k < cell.size(); ++k, ++rows)
        t.row({h, n, pj["seeds"][k].get<double>(), cell[k].get<double>()});
      h_lo = first ? h : std::min(h_lo, h), h_hi = first ? h : std::max(h_hi, h);
      n_lo = first ? n : std::min(n_lo, n), n_hi = first ? n : std::max(n_hi, n);
      first = false;
    }
    if (rows == 0) throw StageError("sweep series '" + series + "': no input predictor starts with '" + prefix + "'");
    t.save(stage.output("sweep_" + series + ".csv"));
  }
  std::vector<std::string> columns = {"heads", "parameters"};
  std::vector<double> lo = {h_lo / 1.5, n_lo / 1.5}, hi = {h_hi * 1.5, n_hi * 1.5};
  for (const auto& b : c.sweep_baselines) {
    if (!predictors.contains(b)) throw StageError("config 'sweep_baselines': '" + b + "' is not an input predictor");
    columns.push_back(b);
    lo.push_back(predictors[b]["precision"]["6+"]["L"]["mean"].get<double>());
    hi.push_back(lo.back());
  }
  CsvTable bt(columns);
  bt.row(lo);
  bt.row(hi);
  bt.save(stage.output("sweep_baselines.csv"));
}

// curves.csv: each predictor's precision against the number of predictions
// k = 1..curve_max_k, the mean over its runs.
void write_curves(Stage& stage, Runs& runs, const FamilyData& f, std::size_t curve_max_k) {
  std::vector<std::string> columns = {"k"};
  std::vector<std::vector<double>> curves;
  for (const std::string& p : predictor_order(runs)) {
    columns.push_back(p);
    std::vector<double> sum;
    for (const Run& r : runs[p]) {
      const auto c = precision_curve(r.ranked, f.residues, f.contacts, curve_max_k);
      sum.resize(c.size(), 0.0);
      for (std::size_t k = 0; k < c.size(); ++k) sum[k] += c[k] / double(runs[p].size());
    }
    curves.push_back(sum);
  }
  CsvTable curve_table(columns);
  for (std::size_t k = 0; k < curves.front().size(); ++k) {
    std::vector<double> row = {double(k + 1)};
    for (const auto& c : curves) row.push_back(c[k]);
    curve_table.row(row);
  }
  curve_table.save(stage.output("curves.csv"));
}

// map_<file_name>_{hits,misses}.csv: predictor p's top L pairs (seed
// map_seed, or its one run) above the diagonal (upper) or below it.
void write_map(Stage& stage, Runs& runs, const FamilyData& f, int map_seed, const std::string& p, bool upper,
               const std::string& file_name) {
  if (!runs.count(p)) throw StageError("the contact map needs the predictor '" + p + "', which is not an input");
  const Run* run = nullptr;
  for (const Run& r : runs[p])
    if (r.seed == map_seed || r.seed == 0) run = &r;
  if (!run) throw StageError("the contact map needs " + p + " seed " + std::to_string(map_seed) + ", not an input");
  const Pairs& pairs = run->ranked;
  CsvTable hits({"x", "y"}), misses({"x", "y"});
  for (std::size_t t = 0; t < std::min<std::size_t>(f.train.L, pairs.size()); ++t) {
    const int i = f.residues[pairs[t].first], j = f.residues[pairs[t].second];
    const double x = upper ? i : j, y = upper ? j : i;
    (is_contact(f.contacts, i, j) ? hits : misses).row({x, y});
  }
  hits.save(stage.output("map_" + file_name + "_hits.csv"));
  misses.save(stage.output("map_" + file_name + "_misses.csv"));
}

// The contact maps: the truth; factored attention above and the PLM below
// where asked for; the best coupling model against map_reference when
// configured (returned for the summary, else null).
nlohmann::json write_maps(Stage& stage, const ScoreConfig& c, Runs& runs, nlohmann::json& predictors,
                          const FamilyData& f) {
  CsvTable truth({"x", "y"});
  for (const auto& [i, j] : f.contacts) {
    truth.row({double(i), double(j)});
    truth.row({double(j), double(i)});
  }
  truth.save(stage.output("map_true.csv"));
  // Only where asked for (the panel's families have neither model).
  if (stage.wants("map_factored_hits.csv")) write_map(stage, runs, f, c.map_seed, "factored", true, "factored");
  if (stage.wants("map_plm_hits.csv")) write_map(stage, runs, f, c.map_seed, "plm", false, "plm");
  if (c.best_among.empty()) return nullptr;
  std::string b;
  double top = -1.0;
  for (const std::string& p : predictor_order(runs)) {
    bool listed = false;
    for (const auto& prefix : c.best_among) listed = listed || p.rfind(prefix, 0) == 0;
    if (!listed) continue;
    const double m = predictors[p]["precision"]["6+"]["L"]["mean"].get<double>();
    if (m > top) top = m, b = p;  // ties: the first in order
  }
  if (b.empty()) throw StageError("config 'best_among': no input predictor starts with any of its prefixes");
  write_map(stage, runs, f, c.map_seed, b, true, "best");
  write_map(stage, runs, f, c.map_seed, c.map_reference, false, "reference");
  return {{"predictor", b}, {"top_L", top}, {"among", c.best_among}, {"map_reference", c.map_reference}};
}

// The family's size, contacts and the precision of a ranking at random:
// contacts over the pairs of columns it ranks (|i − j| ≥ 6).
void family_facts(const FamilyData& f, nlohmann::json& s) {
  s["L"] = f.train.L;
  s["first_residue"] = f.residues.front();
  s["last_residue"] = f.residues.back();
  s["contacts"] = f.contacts.size();
  std::size_t pairs6 = 0;
  for (std::size_t a = 0; a < f.residues.size(); ++a)
    for (std::size_t b = a + 1; b < f.residues.size(); ++b) pairs6 += f.residues[b] - f.residues[a] >= 6;
  s["pairs_6+"] = pairs6;
  s["random_precision_6+"] = pairs6 ? double(f.contacts.size()) / double(pairs6) : 0.0;
}

// "aliases" {name: predictor}: a predictor listed under a second name, so
// that a small-scale run can stand in for every run the account names (the
// quick DAG fits three coupling models, the paper's sweep many).
void apply_aliases(const ScoreConfig& c, nlohmann::json& predictors) {
  for (const auto& [name, target] : c.aliases.items()) {
    if (!target.is_string() || !predictors.contains(target.get<std::string>()))
      throw StageError(c.origin + ": aliases." + name + ": expected the name of an input predictor, got " +
                       target.dump());
    if (predictors.contains(name)) throw StageError(c.origin + ": aliases." + name + ": already a predictor");
    predictors[name] = predictors[target.get<std::string>()];
    predictors[name]["alias_of"] = target;
  }
}

// "paired": each [A, B]'s top-L difference with its paired s.e.
// (lib/proteins/paired.h), A and B predictors or aliases.
void paired_differences(const ScoreConfig& c, Runs& runs, const FamilyData& f, nlohmann::json& s) {
  for (const auto& [a, b] : c.paired) {
    auto fits = [&](const std::string& name) {
      std::string target = name;
      if (!runs.count(target) && c.aliases.contains(name)) target = c.aliases.at(name).get<std::string>();
      if (!runs.count(target))
        throw StageError(c.origin + ": paired: '" + name + "' is not an input predictor or an alias of one");
      std::vector<arma::mat> out;
      for (const Run& r : runs.at(target)) out.push_back(r.scores.at("counted"));
      return out;
    };
    const PairedDifference d = paired_precision_difference(fits(a), fits(b), f.residues, f.contacts, 1.0, 6);
    s["paired"][a][b] = {{"difference", d.difference},
                         {"jackknife_se", d.jackknife_se},
                         {"seeds_se", d.seeds_se},
                         {"standard_error", d.standard_error}};
  }
  if (!c.paired.empty())
    s["paired_se"] =
        "the difference of two predictors' top-L precision (|i − j| ≥ 6, each the mean over its fits) "
        "and its paired standard error: the delete-one-residue jackknife over the L columns and the "
        "seeds' spread, in quadrature";
}

// Without a structure: the top pairs and a summary of what was ranked.
void write_unscored_summary(Stage& stage, const Runs& runs, const FamilyData& f) {
  nlohmann::json s;
  s["L"] = f.train.L;
  s["first_residue"] = f.residues.front();
  s["last_residue"] = f.residues.back();
  s["structure"] = nullptr;
  for (const auto& [p, rs] : runs) s["predictors"][p]["runs"] = rs.size();
  stage.write_summary(s);
}

}  // namespace

void run_proteins_score(Stage& stage) {
  const ScoreConfig c = read_score_config(stage.config());
  const FamilyData f = read_family(stage);
  if (!f.has_structure)
    for (const std::string key : {"precision.csv", "curves.csv", "map_true.csv"})
      if (stage.wants(key))
        throw StageError("output '" + key + "' needs a structure, and the family (" +
                         stage.input("family/summary.json") +
                         ") has none; ask for top_pairs.csv and summary.json only");
  Runs runs = read_runs(stage, f);
  write_top_pairs(stage, runs, f);
  if (!f.has_structure) return write_unscored_summary(stage, runs, f);

  nlohmann::json predictors = score_predictors(stage, runs, f);
  if (!c.sweep_series.empty()) write_sweep(stage, c, runs, predictors);
  write_curves(stage, runs, f, c.curve_max_k);
  const nlohmann::json best = write_maps(stage, c, runs, predictors, f);

  nlohmann::json s;
  family_facts(f, s);
  s["map_seed"] = c.map_seed;
  if (!best.is_null()) s["best"] = best;
  apply_aliases(c, predictors);
  s["predictors"] = predictors;
  paired_differences(c, runs, f, s);
  s["top"] =
      "precision of the k highest-scoring pairs of columns with |i − j| ≥ separation (residue numbers), "
      "k = floor(L), floor(L/2), floor(L/5) with L the number of columns";
  s["se"] =
      "sqrt(se_seeds^2 + se_binomial^2): the standard error of the mean over seeds (0 for one run) and "
      "sqrt(p (1 − p) / k), the sampling error of a precision over k predicted pairs";
  stage.write_summary(s);
}

}  // namespace potts
