#include "stages/figures/figure_stage.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include "lib/core/io.h"
#include "lib/core/stats.h"
#include "lib/figures/gnuplot.h"
#include "lib/potts/model.h"
#include "lib/provenance/literate.h"
#include "lib/provenance/names.h"

namespace potts::figures {
namespace {

std::string basename_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "sample/summary.json" -> {"sample", "summary.json"}.
std::pair<std::string, std::string> split_key(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return {key, ""};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

// Inputs whose stage key matches `key_pattern` and file name `file_pattern`.
std::vector<std::pair<std::string, std::string>> matching_inputs(const Stage& stage, const std::string& key_pattern,
                                                                 const std::string& file_pattern) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, path] : stage.inputs()) {
    auto [k, f] = split_key(key);
    if (provenance::matches(key_pattern, k) && provenance::matches(file_pattern, f)) out.push_back({key, path});
  }
  return out;
}

// As matching_inputs, but at least one input must match.
std::vector<std::pair<std::string, std::string>> find_inputs(const Stage& stage, const std::string& key_pattern,
                                                             const std::string& file_pattern) {
  auto out = matching_inputs(stage, key_pattern, file_pattern);
  if (out.empty()) {
    std::string have;
    for (const auto& [key, path] : stage.inputs()) have += " " + key;
    throw StageError("figures: no input matches " + key_pattern + "/" + file_pattern + "; inputs:" + have);
  }
  return out;
}

// Summaries and provenance records of the upstream stages, for the caption.
std::map<std::string, provenance::StageDocs> stage_docs(const Stage& stage) {
  std::map<std::string, provenance::StageDocs> docs;
  for (const auto& [key, path] : stage.inputs()) {
    auto [k, f] = split_key(key);
    if (f == "summary.json") docs[k].summary = nlohmann::json::parse(read_text(path));
    if (f == "provenance.json") docs[k].provenance = nlohmann::json::parse(read_text(path));
  }
  return docs;
}

// Caption placeholders over arrays, which lib/provenance's placeholders
// cannot show: {{key.path:list}} gives the elements joined by ", " (e.g. the
// seeds a sweep averaged) and {{key.path:count}} their number. The path
// resolves as in provenance::fill_placeholders, which fills the other
// placeholders; one that names nothing or no array is an error.
std::string expand_array_placeholders(const std::string& text, const std::map<std::string, provenance::StageDocs>& docs,
                                      const std::string& origin) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const auto open = text.find("{{", pos);
    const auto close = open == std::string::npos ? open : text.find("}}", open);
    if (close == std::string::npos) break;
    const std::string body = text.substr(open + 2, close - open - 2);
    const auto colon = body.rfind(':');
    const std::string fmt = colon == std::string::npos ? "" : body.substr(colon + 1);
    if (fmt != "list" && fmt != "count") {
      out += text.substr(pos, close + 2 - pos);
      pos = close + 2;
      continue;
    }
    const std::string name = body.substr(0, colon);
    const std::string where = origin + ": placeholder {{" + body + "}}";
    const nlohmann::json* j = &provenance::resolve(docs, name, where);
    if (!j->is_array()) throw StageError(where + ": ':" + fmt + "' needs an array, found " + j->dump());
    out += text.substr(pos, open - pos);
    if (fmt == "count") {
      out += std::to_string(j->size());
    } else {
      try {
        for (std::size_t i = 0; i < j->size(); ++i) out += (i ? ", " : "") + provenance::format_value((*j)[i], "");
      } catch (const StageError& e) {
        throw StageError(where + ": " + e.what());
      }
    }
    pos = close + 2;
  }
  return out + text.substr(pos);
}

// Every placeholder of a caption or series title filled from the upstream
// stages' documents.
std::string fill_text(const std::string& text, const std::map<std::string, provenance::StageDocs>& docs,
                      const std::string& where) {
  return provenance::fill_placeholders(expand_array_placeholders(text, docs, where), docs, where);
}

// The caption as segments, so that the rendered paper can link each number
// of it to its source: {"text": ...} for the template's own text, and for
// each filled placeholder {"value", "from" (key.path), "target", "stage"}
// of the upstream stage it came from. The values and texts joined are the
// caption.
nlohmann::json caption_segments(const std::string& text, const std::map<std::string, provenance::StageDocs>& docs,
                                const std::string& where) {
  nlohmann::json filled = nlohmann::json::array();
  const char mark = '\x1f';  // never in a caption template
  auto decorate = [&](const std::string& key, const std::string& path, const std::string& value) {
    const nlohmann::json& rec = docs.at(key).provenance;
    filled.push_back({{"value", value},
                      {"from", key + "." + path},
                      {"target", rec.is_object() ? rec.value("target", "") : ""},
                      {"stage", rec.is_object() ? rec.value("stage", "") : ""}});
    return std::string(1, mark);
  };
  const std::string marked =
      provenance::fill_placeholders(expand_array_placeholders(text, docs, where), docs, where, decorate);
  nlohmann::json out = nlohmann::json::array();
  std::size_t start = 0, n = 0;
  for (std::size_t k = 0; k <= marked.size(); ++k) {
    if (k < marked.size() && marked[k] != mark) continue;
    if (k > start) out.push_back({{"text", marked.substr(start, k - start)}});
    if (k < marked.size()) out.push_back(filled.at(n++));
    start = k + 1;
  }
  return out;
}

// The caption the segments spell.
std::string joined(const nlohmann::json& segments) {
  std::string out;
  for (const auto& s : segments)
    out += s.contains("text") ? s["text"].get<std::string>() : s["value"].get<std::string>();
  return out;
}

// A value from an upstream summary: {"key": "sample", "field": "optimal_test_loss"}.
double summary_number(const Stage& stage, Config c, const std::string& what) {
  const std::string key = c.string("key"), field = c.string("field");
  c.finish();
  const std::string path = stage.input(key + "/summary.json");
  nlohmann::json j = nlohmann::json::parse(read_text(path));
  const nlohmann::json* v = &j;
  std::size_t start = 0;
  while (true) {
    auto d = field.find('.', start);
    const std::string part = field.substr(start, d == std::string::npos ? std::string::npos : d - start);
    if (!v->is_object() || !v->contains(part))
      throw StageError(path + ": " + what + " needs field '" + field + "', which is missing");
    v = &(*v)[part];
    if (d == std::string::npos) break;
    start = d + 1;
  }
  if (!v->is_number()) throw StageError(path + ": field '" + field + "' is not a number");
  return v->get<double>();
}

struct Series {
  std::string title;
  bool optional = false;  // may have no rows (e.g. a sweep with no identity-U points at quick scale)
  std::vector<double> x, y, err, n, lo, hi;
};

// The q-quantile of sorted values (linear interpolation between ranks).
double quantile_sorted(const std::vector<double>& v, double q) {
  const double r = q * double(v.size() - 1);
  const auto i = std::size_t(std::floor(r));
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (r - double(i)) * (v[i + 1] - v[i]);
}

std::string fmt(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// Reads one "xy" series from every matching CSV (a sweep split into many
// actions contributes one file per action).
Series read_series(const Stage& stage, Config c) {
  Series s;
  s.title = c.string("title");
  const std::string key = c.string("key"), file = c.string("file"), xcol = c.string("x"), ycol = c.string("y");
  const std::string ecol = c.has("err") ? c.string("err") : "";
  // "y_minus": a column of the same file subtracted from y row by row before
  // any averaging (e.g. test_loss - optimal_test_loss: the gap to ε*).
  const std::string mcol = c.has("y_minus") ? c.string("y_minus") : "";
  const bool average = c.has("average") ? c.boolean("average") : ecol.empty();
  // Per x, when averaging: the centre ("mean", or "median") and the band
  // (lo, hi) drawn around it: the standard error ("se"), the quartiles
  // ("quartiles") or the smallest and largest value ("range").
  const std::string statistic = c.has("statistic") ? c.choice("statistic", {"mean", "median"}) : "mean";
  const std::string spread = c.has("spread") ? c.choice("spread", {"se", "quartiles", "range"}) : "se";
  s.optional = c.has("optional") && c.boolean("optional");
  std::vector<double> xs, ys, es;
  // An optional series may also lack its input altogether (e.g. the refined
  // peak of figure 3 right, computed at paper scale only).
  if (s.optional && matching_inputs(stage, key, file).empty()) {
    c.finish();
    return s;
  }
  for (const auto& [k, path] : find_inputs(stage, key, file)) {
    auto t = read_csv(path);
    for (const auto& col : {xcol, ycol, ecol, mcol}) {
      if (col.empty()) continue;
      if (!t.count(col)) {
        std::string have;
        for (const auto& [name, v] : t) have += " " + name;
        throw StageError(path + ": no column '" + col + "' (series '" + s.title + "'); columns:" + have);
      }
    }
    xs.insert(xs.end(), t[xcol].begin(), t[xcol].end());
    for (std::size_t r = 0; r < t[ycol].size(); ++r) ys.push_back(t[ycol][r] - (mcol.empty() ? 0.0 : t[mcol][r]));
    if (!ecol.empty()) es.insert(es.end(), t[ecol].begin(), t[ecol].end());
  }
  c.finish();
  // Sort by x, stable so that equal x keep file order.
  std::vector<std::size_t> order(xs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return xs[a] < xs[b]; });
  if (!average) {
    for (auto i : order) {
      s.x.push_back(xs[i]);
      s.y.push_back(ys[i]);
      s.err.push_back(es.empty() ? 0.0 : es[i]);
      s.n.push_back(1);
      s.lo.push_back(s.y.back() - s.err.back());
      s.hi.push_back(s.y.back() + s.err.back());
    }
    return s;
  }
  // Mean and standard error per x (an x seen once: no error bar).
  for (std::size_t a = 0; a < order.size();) {
    std::vector<double> at_x;
    std::size_t b = a;
    while (b < order.size() && xs[order[b]] == xs[order[a]]) at_x.push_back(ys[order[b++]]);
    const MeanSe m = mean_se(at_x);
    std::vector<double> sorted = at_x;
    std::sort(sorted.begin(), sorted.end());
    s.x.push_back(xs[order[a]]);
    s.y.push_back(statistic == "median" ? quantile_sorted(sorted, 0.5) : m.mean);
    s.err.push_back(m.n > 1 ? m.se : 0.0);
    s.n.push_back(double(m.n));
    if (spread == "quartiles") {
      s.lo.push_back(quantile_sorted(sorted, 0.25));
      s.hi.push_back(quantile_sorted(sorted, 0.75));
    } else if (spread == "range") {
      s.lo.push_back(sorted.front());
      s.hi.push_back(sorted.back());
    } else {
      s.lo.push_back(s.y.back() - s.err.back());
      s.hi.push_back(s.y.back() + s.err.back());
    }
    a = b;
  }
  return s;
}

// One series' block of the .dat file (x y err n lo hi per point, minus
// `subtract`; points at or below zero dropped when positive_only) and its
// summary: the last point and the extremes (e.g. where a curve peaks).
struct SeriesBlock {
  std::string text;
  nlohmann::json info;
  std::size_t count = 0;
};

SeriesBlock series_block(const Series& s, std::size_t i, const std::string& name, double subtract, bool positive_only) {
  SeriesBlock b;
  std::ostringstream block;
  block << "# series " << i << ": " << s.title << "\n# x y err n lo hi\n";
  b.info = {{"name", name}, {"title", s.title}, {"points", 0}};
  auto point = [&](std::size_t k, double y) {
    return nlohmann::json{{"x", s.x[k]}, {"y", y}, {"err", s.err[k]}, {"n", s.n[k]}};
  };
  for (std::size_t k = 0; k < s.x.size(); ++k) {
    const double y = s.y[k] - subtract;
    if (positive_only && !(y > 0)) continue;  // log axis: drop points at or below zero
    block << fmt(s.x[k]) << " " << fmt(y) << " " << fmt(s.err[k]) << " " << fmt(s.n[k]) << " "
          << fmt(s.lo[k] - subtract) << " " << fmt(s.hi[k] - subtract) << "\n";
    if (!b.count || y < b.info["min"]["y"].get<double>()) b.info["min"] = point(k, y);
    if (!b.count || y > b.info["max"]["y"].get<double>()) b.info["max"] = point(k, y);
    if (!b.count) b.info["first"] = point(k, y);
    b.info["last"] = point(k, y);
    b.info["points"] = ++b.count;
  }
  if (!b.count) block << "NaN NaN NaN 0 NaN NaN\n";  // an empty block would shift gnuplot's index numbering
  b.text = block.str();
  return b;
}

struct Plot {
  std::string data;  // the .dat file
  std::string vars;  // gnuplot assignments
  nlohmann::json summary = nlohmann::json::object();
};

// docs: the upstream stages' documents, for placeholders in series titles.
Plot xy_figure(Stage& stage, Config& cfg, const std::map<std::string, provenance::StageDocs>& docs) {
  Plot p;
  double subtract = 0;
  if (cfg.has("subtract")) {
    subtract = summary_number(stage, cfg.section("subtract"), "subtract");
    p.summary["subtracted"] = subtract;
  }
  const bool positive_only = cfg.has("positive_only") && cfg.boolean("positive_only");
  std::vector<std::string> titles;
  // "series": {"1_theory": {...}, "2_simulation": {...}}: drawn in key order
  // (the script refers to them as index 0, 1, ...); the summary names each by
  // its key without the ordering prefix ("theory"), for the paper to quote.
  Config list = cfg.section("series");
  std::vector<std::string> ids, names;
  for (const auto& [id, v] : list.json().items()) {
    const auto digits = id.find_first_not_of("0123456789");
    const bool prefixed = digits != std::string::npos && digits > 0 && id[digits] == '_' && digits + 1 < id.size();
    const std::string name = prefixed ? id.substr(digits + 1) : id;
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw StageError(cfg.origin() + ": series '" + id + "': another series is also named '" + name + "'");
    ids.push_back(id);
    names.push_back(name);
  }
  if (ids.empty()) throw StageError(cfg.origin() + ": 'series' must name at least one series");
  nlohmann::json series_summary = nlohmann::json::array();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    Series s = read_series(stage, list.section(ids[i]));
    // titles may quote the inputs as captions do ("{{potts.realisations}} realisations")
    s.title = fill_text(s.title, docs, cfg.origin() + " series '" + ids[i] + "' title");
    const SeriesBlock b = series_block(s, i, names[i], subtract, positive_only);
    if (!b.count && !s.optional) throw StageError(cfg.origin() + ": series '" + s.title + "' has no points to draw");
    // A series with nothing drawn gets no key entry (gnuplot: title '').
    titles.push_back(gp_string(b.count ? s.title : ""));
    if (i) p.data += "\n\n";
    p.data += b.text;
    series_summary.push_back(b.info);
  }
  list.finish();
  p.summary["series"] = series_summary;
  p.vars += gp_array("titles", titles) + "n_series = " + std::to_string(titles.size()) + "; ";
  double hline = NAN;
  if (cfg.has("hline")) {
    hline = summary_number(stage, cfg.section("hline"), "hline");
    p.summary["hline"] = hline;
  }
  p.vars += "hline = " + gp_number(hline) + "; has_hline = " + (std::isfinite(hline) ? "1" : "0") + "; ";
  double coef = NAN;
  if (cfg.has("power_law_coefficient")) {
    coef = summary_number(stage, cfg.section("power_law_coefficient"), "power_law_coefficient");
    p.summary["power_law_coefficient"] = coef;
  }
  p.vars += "power_coef = " + gp_number(coef) + "; ";
  // "numbers": {"name": {"key": .., "field": ..}}: upstream summary values
  // the script uses by name (e.g. L and C for a theory curve).
  if (cfg.has("numbers")) {
    Config nums = cfg.section("numbers");
    for (const auto& [name, v] : nums.json().items()) {
      const double x = summary_number(stage, nums.section(name), "numbers." + name);
      p.summary["numbers"][name] = x;
      p.vars += name + " = " + gp_number(x) + "; ";
    }
    nums.finish();
  }
  return p;
}

std::string matrix_block(const arma::mat& m) {
  std::string s;
  for (arma::uword i = 0; i < m.n_rows; ++i) {
    for (arma::uword j = 0; j < m.n_cols; ++j) s += (j ? " " : "") + fmt(m(i, j));
    s += "\n";
  }
  return s;
}

Plot heatmap_figure(Stage& stage, Config& cfg) {
  Plot p;
  Config jc = cfg.section("couplings");
  const std::string jpath = stage.input(jc.string("key") + "/" + jc.string("file"));
  const arma::mat J = h5_read_matrix(jpath, jc.string("dataset"));
  const std::string jtitle = jc.string("title");
  jc.finish();
  // "own_scale": each map drawn as it is on its own colour range (a softmax
  // map is positive and need not resemble J's scale); otherwise as c·A on
  // J's symmetric range.
  const bool own_scale = cfg.has("own_scale") && cfg.boolean("own_scale");
  if (J.n_rows != J.n_cols) throw StageError(jpath + ": couplings are not square");
  arma::mat Jshow = J;
  Jshow.diag().zeros();
  double cbmax = arma::abs(Jshow).max();
  std::vector<arma::mat> shown{Jshow};
  std::vector<std::string> titles{gp_string(jtitle)}, erec{"0.0"}, lows{"0.0"}, highs{"0.0"};
  nlohmann::json maps = nlohmann::json::array();
  // "maps": {"1_factored": {...}, ...}, drawn in key order after J.
  Config list = cfg.section("maps");
  std::vector<std::string> ids;
  for (const auto& [id, v] : list.json().items()) ids.push_back(id);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    Config c = list.section(ids[i]);
    const std::string path = stage.input(c.string("key") + "/" + c.string("file"));
    const std::string ds = c.string("dataset"), title = c.string("title");
    c.finish();
    arma::mat A = h5_read_matrix(path, ds);
    if (A.n_rows != J.n_rows || A.n_cols != J.n_cols)
      throw StageError(path + ": dataset '" + ds + "' is " + std::to_string(A.n_rows) + "x" + std::to_string(A.n_cols) +
                       ", expected the shape of J (" + std::to_string(J.n_rows) + "x" + std::to_string(J.n_cols) + ")");
    // Drawn at its least-squares scale c, with its e_rec (paper/spec.md §2).
    const Reconstruction rec = reconstruct(J, A);
    const double c_ls = rec.scale, e = rec.error;
    arma::mat S = own_scale ? A : arma::mat(c_ls * A);
    S.diag().zeros();
    arma::mat off = S;
    off.diag().fill(S.n_rows > 1 ? S(0, 1) : 0.0);  // the range over i != j only
    lows.push_back(gp_number(own_scale ? off.min() : 0.0));
    highs.push_back(gp_number(own_scale ? off.max() : 0.0));
    shown.push_back(S);
    if (!own_scale) cbmax = std::max(cbmax, arma::abs(S).max());
    titles.push_back(gp_string(title));
    erec.push_back(gp_number(e));
    maps.push_back({{"title", title}, {"scale_c", c_ls}, {"reconstruction_error", e}});
  }
  list.finish();
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (i) p.data += "\n\n";
    p.data += "# map " + std::to_string(i) + "\n" + matrix_block(shown[i]);
  }
  p.summary["maps"] = maps;
  p.summary["colour_range"] = cbmax;
  p.summary["own_scale"] = own_scale;
  p.vars += gp_array("titles", titles) + gp_array("erec", erec) + gp_array("map_lo", lows) + gp_array("map_hi", highs) +
            "own_scale = " + (own_scale ? "1" : "0") + "; n_maps = " + std::to_string(shown.size()) +
            "; cbmax = " + gp_number(cbmax) + "; L = " + std::to_string(J.n_rows) + "; ";
  return p;
}

}  // namespace

void run_figures(Stage& stage) {
  Config& cfg = stage.config();
  const std::string kind = cfg.choice("figure", {"xy", "heatmaps"});
  const std::string caption_template = cfg.string("caption");
  std::vector<double> size{5.0, 3.5};
  if (cfg.has("size_inches")) size = cfg.numbers("size_inches", 1.0, 20.0);
  if (size.size() != 2) throw StageError(cfg.origin() + ": size_inches must be [width, height]");
  const double font_pt = cfg.has("font_pt") ? cfg.number("font_pt", 4, 30) : 9.0;
  const double png_dpi = cfg.has("png_dpi") ? cfg.number("png_dpi", 50, 600) : 200.0;

  // Which outputs: <name>.png, <name>.pdf, <name>.dat.
  std::string png, pdf, dat;
  for (const auto& [k, path] : stage.outputs()) {
    if (provenance::matches("*.png", k)) png = k;
    if (provenance::matches("*.pdf", k)) pdf = k;
    if (provenance::matches("*.dat", k)) dat = k;
  }
  if (png.empty() || pdf.empty() || dat.empty())
    throw StageError("figures: declare outputs <name>.png, <name>.pdf and <name>.dat");
  auto scripts = find_inputs(stage, "script", "*.gp");
  if (scripts.size() != 1) throw StageError("figures: expected one script/<name>.gp input");
  const std::string script = scripts[0].second;
  // The settings every figure shares (stages/figures/scripts/common.gp),
  // run before the figure's own script.
  const auto commons = find_inputs(stage, "common", "*.gp");
  if (commons.size() > 1) throw StageError("figures: expected at most one common/<name>.gp input");

  const auto docs = stage_docs(stage);
  Plot p = kind == "xy" ? xy_figure(stage, cfg, docs) : heatmap_figure(stage, cfg);
  const nlohmann::json segments = caption_segments(caption_template, docs, cfg.origin() + " caption");
  const std::string caption = joined(segments);
  write_text_atomic(stage.output(dat), p.data);

  // The caption sits under the plot in 6 pt type, wrapped to
  // the figure's width; the scripts put the plot's bottom
  // edge at plot_bottom and the caption's first line at
  // caption_y (screen coordinates).
  const auto lines = wrap(caption, static_cast<std::size_t>(size[0] * 15));
  std::string wrapped;
  for (std::size_t i = 0; i < lines.size(); ++i) wrapped += (i ? "\n" : "") + lines[i];
  const double line_frac = 9.5 / (72.0 * size[1]);  // 6 pt type, cairo's line pitch
  const double caption_y = 0.012 + (lines.size() - 0.5) * line_frac;
  const double plot_bottom = caption_y + 0.5 * line_frac + 0.7 / size[1];
  const std::string common = "datafile = " + gp_string(stage.output(dat)) + "; caption = " + gp_dquoted(wrapped) +
                             "; caption_y = " + gp_number(caption_y) + "; plot_bottom = " + gp_number(plot_bottom) +
                             "; " + p.vars;
  const std::string font = "font 'DejaVu Sans," + gp_number(font_pt) + "'";
  const double px = png_dpi / 72.0;
  char size_pdf[64], size_png[64];
  std::snprintf(size_pdf, sizeof size_pdf, "size %.3fin,%.3fin", size[0], size[1]);
  std::snprintf(size_png, sizeof size_png, "size %d,%d", int(size[0] * png_dpi), int(size[1] * png_dpi));
  // The PNG is the PDF page rasterised at png_dpi: pngcairo
  // measures fonts in points at 72 dpi, so fonts and lines
  // are scaled by dpi/72.
  const std::string png_term = "set terminal pngcairo enhanced " + std::string(size_png) + " " + font + " fontscale " +
                               gp_number(px) + " linewidth " + gp_number(px) + "; set output " +
                               gp_string(stage.output(png)) + "; ";
  const std::string pdf_term = "set terminal pdfcairo enhanced " + std::string(size_pdf) + " " + font +
                               "; set output " + gp_string(stage.output(pdf)) + "; ";
  for (const auto& term : {png_term, pdf_term}) {
    std::vector<std::string> args = {"gnuplot", "-e", "set encoding utf8; " + common + term};
    for (const auto& [key, path] : commons) args.push_back(path);
    args.push_back(script);
    run_gnuplot(args, script);
  }
  fix_pdf_date(stage.output(pdf));

  nlohmann::json summary = p.summary;
  summary["figure"] = basename_of(stage.output(png)).substr(0, basename_of(stage.output(png)).size() - 4);
  summary["caption"] = caption;
  summary["caption_segments"] = segments;
  summary["script"] = scripts[0].first;
  // (The script's hash is in the provenance record; the summary
  // stays the same when only the drawing changes.)
  if (stage.wants("summary.json")) stage.write_summary(summary);
}

}  // namespace potts::figures
