#include "stages/diversity/diversity_merge_stage.h"

#include <algorithm>
#include <map>

namespace potts {

namespace {

const std::vector<std::string> kColumns = {
    "hamming",          "beta",        "optimal_test_loss", "fa_gap_mean",       "fa_gap_se",
    "fa_erec_mean",     "fa_erec_se",  "fa_stall_fraction", "plm_gap",           "plm_erec",
    "target_hamming",   "fa_best_gap", "fa_best_erec",      "plm_erec_zero_sum", "fa_lambda_chosen",
    "plm_lambda_chosen"};

// One row of the tables per point, read (and checked) from its summary.
struct Point {
  double hamming;
  std::vector<double> row;
  bool has_diagnostics = false, degenerate = false;
  double test_in_train_share = 0;
  std::vector<double> grid, plm_losses, fa_losses;  // validation curves (may be empty)
};

// The validation curves of a point, on one lambda grid (the merge's table).
void read_validation(Config& c, Point& p) {
  for (const char* est : {"plm_validation", "fa_validation"}) {
    if (!c.has(est)) continue;
    Config v = c.section(est);
    const std::vector<double> grid = v.numbers("lambda_grid", 0.0, 1e3);
    std::vector<double> losses = v.numbers("validation_loss");
    if (losses.size() != grid.size())
      throw StageError(c.origin() + ": " + est + ": " + std::to_string(losses.size()) + " validation losses for " +
                       std::to_string(grid.size()) + " lambdas");
    if (!p.grid.empty() && grid != p.grid)
      throw StageError(c.origin() + ": plm_validation and fa_validation must share one lambda grid");
    p.grid = grid;
    (std::string(est) == "plm_validation" ? p.plm_losses : p.fa_losses) = losses;
  }
}

// The points by colour kind; `all` collects their summaries as read.
std::map<std::string, std::vector<Point>> read_points(Stage& stage, int points, nlohmann::json& all) {
  std::map<std::string, std::vector<Point>> by_kind;
  for (int k = 0; k < points; ++k) {
    Config c = Config::load(stage.input("p" + std::to_string(k) + "/summary.json"));
    Point p;
    const std::string kind = c.string("colour_kind");
    p.hamming = c.number("hamming");
    for (auto& col : kColumns) p.row.push_back(c.value(col).is_null() ? -1.0 : c.number(col));
    if (c.has("data_diagnostics")) {
      Config d = c.section("data_diagnostics");
      p.has_diagnostics = true;
      p.degenerate = d.boolean("degenerate");
      p.test_in_train_share = d.number("test_in_train_share", 0.0, 1.0);
    }
    read_validation(c, p);
    by_kind[kind].push_back(p);
    all.push_back(c.json());
  }
  return by_kind;
}

// By decreasing distance.
std::vector<Point> by_distance(std::vector<Point> rows) {
  std::sort(rows.begin(), rows.end(), [](const Point& a, const Point& b) { return a.hamming > b.hamming; });
  return rows;
}

// diversity.csv (Gaussian U) and diversity_identity.csv; for Gaussian U
// also the points whose data did not mix (diversity_degenerate.csv, for the
// figure) and the validation curves (validation.csv).
void write_tables(Stage& stage, std::map<std::string, std::vector<Point>>& by_kind) {
  for (const auto& kind : {std::string("gaussian"), std::string("identity")}) {
    const auto rows = by_distance(by_kind[kind]);
    CsvTable t(kColumns);
    for (auto& p : rows) t.row(p.row);
    t.save(stage.output(kind == "gaussian" ? "diversity.csv" : "diversity_identity.csv"));
    if (kind != "gaussian") continue;
    CsvTable bad(kColumns);
    for (auto& p : rows)
      if (p.degenerate) bad.row(p.row);
    bad.save(stage.output("diversity_degenerate.csv"));
    CsvTable v({"hamming", "lambda", "plm_validation_loss", "fa_validation_loss"});
    for (auto& p : rows)
      for (std::size_t g = 0; g < p.grid.size(); ++g)
        v.row({p.hamming, p.grid[g], p.plm_losses.empty() ? -1.0 : p.plm_losses[g],
               p.fa_losses.empty() ? -1.0 : p.fa_losses[g]});
    v.save(stage.output("validation.csv"));
  }
}

// Which data sets are degenerate (test/train overlap or disagreeing
// independent chains, lib/potts/diagnostics.h), per colour kind.
nlohmann::json data_quality(const std::map<std::string, std::vector<Point>>& by_kind) {
  nlohmann::json quality = nlohmann::json::object();
  for (const auto& [kind, rows] : by_kind) {
    int degenerate = 0;
    double lo = 1.0, hi = 0.0;
    for (const auto& r : rows) {
      if (!r.has_diagnostics) continue;
      degenerate += r.degenerate;
      lo = std::min(lo, r.test_in_train_share);
      hi = std::max(hi, r.test_in_train_share);
    }
    quality[kind] = {{"points", rows.size()},
                     {"degenerate", degenerate},
                     {"min_test_in_train_share", lo},
                     {"max_test_in_train_share", hi}};
  }
  return quality;
}

// Where recovery of J ends along the Gaussian-U sweep (by decreasing
// distance): the last point whose mean e_rec is below 0.1 (the regression
// test's tolerance) and the next one.
nlohmann::json recovery_edge(const std::vector<Point>& gaussian) {
  const auto rows = by_distance(gaussian);
  const auto erec_col = std::find(kColumns.begin(), kColumns.end(), "fa_erec_mean") - kColumns.begin();
  auto point_json = [&](const Point& p) {
    return nlohmann::json{{"hamming", p.hamming}, {"fa_erec_mean", p.row[erec_col]}, {"degenerate", p.degenerate}};
  };
  nlohmann::json edge = {{"threshold", 0.1}};
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (!(rows[k].row[erec_col] < 0.1)) {
      if (k > 0) edge["last_recovered"] = point_json(rows[k - 1]);
      edge["first_not_recovered"] = point_json(rows[k]);
      break;
    }
    edge["last_recovered"] = point_json(rows[k]);
  }
  return edge;
}

}  // namespace

void run_diversity_merge(Stage& stage) {
  Config& cfg = stage.config();
  const auto points = cfg.integer("points", 1, 1000);
  cfg.finish();
  nlohmann::json all = nlohmann::json::array();
  auto by_kind = read_points(stage, int(points), all);
  write_tables(stage, by_kind);
  nlohmann::json s;
  s["recovery_edge"] = recovery_edge(by_kind["gaussian"]);
  s["points"] = all;
  s["data_quality"] = data_quality(by_kind);
  s["tables"] = {{"diversity.csv", "gaussian"}, {"diversity_identity.csv", "identity"}, {"validation.csv", "gaussian"}};
  stage.write_summary(s);
}

}  // namespace potts
