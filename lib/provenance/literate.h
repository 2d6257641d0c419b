// The literate paper's numbers come from stage outputs, never from a hand.
//
// fill_placeholders replaces every {{key.path}} or {{key.path:fmt}} in a
// Markdown text: `key` names an upstream stage (the key it was given in
// //paper:BUILD), `path` is a dot-separated path into that stage's
// summary.json, or into its provenance record when it starts with
// "provenance." (e.g. {{factored.final_test_loss:.3f}},
// {{fig2a.provenance.target}}). In an array, a part picks an element by
// its "name" ({{fig_diversity.series.plm_erec.last.y}}) or by the value of a
// field ({{perturb.points[a=0.05].best_test_loss}}; numbers compare as
// numbers); a position (series.2) also resolves, but names do not shift when
// an order changes. Numbers print with fmt (printf style: .3f, .4g, .2e;
// default .4g), integers exactly, strings as they are. A
// placeholder that names nothing is an error naming the line and the keys
// that exist, so the paper never shows a stale or invented number.
//
// Tested by //lib/provenance:results_test.
#pragma once
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace potts::provenance {

struct StageDocs {
  nlohmann::json summary;     // the stage's summary.json (null if it has none)
  nlohmann::json provenance;  // its provenance record
};

// `decorate` (optional) turns each filled value into the text that replaces
// its placeholder, given the stage key and the path: the rendered paper
// links every number to its source this way.
using Decorate = std::function<std::string(const std::string& key, const std::string& path, const std::string& value)>;
std::string fill_placeholders(const std::string& text, const std::map<std::string, StageDocs>& stages,
                              const std::string& origin, const Decorate& decorate = {});

// The value {{body}} names (body = key.path, no format), as fill_placeholders
// finds it; a StageError beginning with `where` when it names nothing.
const nlohmann::json& resolve(const std::map<std::string, StageDocs>& stages, const std::string& body,
                              const std::string& where);

// One value formatted as fill_placeholders does.
std::string format_value(const nlohmann::json& v, const std::string& fmt);

}  // namespace potts::provenance
