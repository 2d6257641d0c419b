#include "lib/provenance/literate.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lib/core/error.h"

namespace potts::provenance {

std::string format_value(const nlohmann::json& v, const std::string& fmt) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer() && fmt.empty()) return std::to_string(v.get<long long>());
  if (v.is_number()) {
    const std::string f = "%" + (fmt.empty() ? std::string(".4g") : fmt);
    if (f.find_first_of("feEgG") == std::string::npos || f.find_first_of("%", 1) != std::string::npos)
      throw StageError("format '" + fmt + "': expected a printf number format such as .3f, .4g or .2e");
    char buf[64];
    std::snprintf(buf, sizeof buf, f.c_str(), v.get<double>());
    return buf;
  }
  throw StageError("value " + v.dump() + " is not a number, string or boolean (arrays and objects cannot be shown)");
}

namespace {

std::string keys_of(const nlohmann::json& j) {
  std::string s;
  if (j.is_object())
    for (const auto& [k, v] : j.items()) s += (s.empty() ? "" : ", ") + k;
  if (j.is_array())  // the names an element can be addressed by
    for (const auto& e : j)
      if (e.is_object() && e.contains("name") && e["name"].is_string())
        s += (s.empty() ? "" : ", ") + e["name"].get<std::string>();
  return s.empty() ? "none" : s;
}

// The parts of a placeholder path: split at dots, except inside a selector
// (points[a=0.05].best_test_loss is points, [a=0.05], best_test_loss).
std::vector<std::string> path_parts(const std::string& path) {
  std::vector<std::string> parts(1);
  bool in_selector = false;
  for (char c : path) {
    if (!in_selector && c == '.') {
      parts.emplace_back();
    } else if (!in_selector && c == '[') {
      if (!parts.back().empty()) parts.emplace_back();
      parts.back() += c;
      in_selector = true;
    } else {
      parts.back() += c;
      if (c == ']') in_selector = false;
    }
  }
  return parts;
}

// A selector's value against a JSON value: numbers compare as numbers
// (0.05 matches 0.05, 1 matches 1.0), strings as text.
bool matches(const nlohmann::json& v, const std::string& value) {
  if (v.is_string()) return v.get<std::string>() == value;
  if (v.is_number()) {
    char* end = nullptr;
    const double x = std::strtod(value.c_str(), &end);
    return !value.empty() && *end == '\0' && x == v.get<double>();
  }
  return false;
}

// The element of an array of objects whose "name" is `name` (e.g. a figure's
// series by the name its config gives it), or null.
const nlohmann::json* by_name(const nlohmann::json& array, const std::string& name) {
  for (const auto& e : array)
    if (e.is_object() && e.contains("name") && e["name"].is_string() && e["name"].get<std::string>() == name) return &e;
  return nullptr;
}

}  // namespace

const nlohmann::json& resolve(const std::map<std::string, StageDocs>& stages, const std::string& body,
                              const std::string& where) {
  auto dot = body.find('.');
  if (dot == std::string::npos) throw StageError(where + ": expected {{stage.key}}");
  const std::string key = body.substr(0, dot);
  auto entry = stages.find(key);
  if (entry == stages.end()) {
    std::string have;
    for (const auto& [k, v] : stages) have += (have.empty() ? "" : ", ") + k;
    throw StageError(where + ": no stage '" + key + "' among the inputs (" + have + ")");
  }
  std::string path = body.substr(dot + 1);
  const nlohmann::json* j = &entry->second.summary;
  std::string file = "summary.json";
  if (path.rfind("provenance.", 0) == 0) {
    j = &entry->second.provenance;
    file = "provenance.json";
    path = path.substr(11);
  }
  for (const std::string& part : path_parts(path)) {
    const std::string miss = where + ": " + key + "/" + file + " has no '" + part + "'";
    if (part.size() > 2 && part.front() == '[' && part.back() == ']') {
      // [field=value]: the element of an array whose field has that value.
      const auto eq = part.find('=');
      if (eq == std::string::npos || eq == 1) throw StageError(miss + " (a selector reads [field=value])");
      const std::string field = part.substr(1, eq - 1), value = part.substr(eq + 1, part.size() - eq - 2);
      const nlohmann::json* found = nullptr;
      if (j->is_array())
        for (const auto& e : *j)
          if (e.is_object() && e.contains(field) && matches(e[field], value)) {
            if (found) throw StageError(miss + " (more than one element has " + field + " = " + value + ")");
            found = &e;
          }
      if (!found) throw StageError(miss + " (no element with " + field + " = " + value + ")");
      j = found;
    } else if (j->is_array() && !part.empty() && part.find_first_not_of("0123456789") == std::string::npos &&
               std::stoul(part) < j->size()) {
      j = &(*j)[std::stoul(part)];
    } else if (j->is_array() && by_name(*j, part)) {
      j = by_name(*j, part);
    } else if (j->is_object() && j->contains(part)) {
      j = &(*j)[part];
    } else {
      throw StageError(miss + " (keys there: " + keys_of(*j) + ")");
    }
  }
  return *j;
}

std::string fill_placeholders(const std::string& text, const std::map<std::string, StageDocs>& stages,
                              const std::string& origin, const Decorate& decorate) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    auto open = text.find("{{", pos);
    if (open == std::string::npos) break;
    out += text.substr(pos, open - pos);
    auto close = text.find("}}", open);
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + open, '\n'));
    const std::string where = origin + ":" + std::to_string(line);
    if (close == std::string::npos) throw StageError(where + ": '{{' without '}}'");
    std::string body = text.substr(open + 2, close - open - 2), fmt;
    auto colon = body.find(':');
    if (colon != std::string::npos) {
      fmt = body.substr(colon + 1);
      body = body.substr(0, colon);
    }
    const nlohmann::json& v = resolve(stages, body, where + ": placeholder {{" + body + "}}");
    try {
      const std::string value = format_value(v, fmt);
      if (decorate) {
        const auto dot = body.find('.');
        out += decorate(body.substr(0, dot), dot == std::string::npos ? "" : body.substr(dot + 1), value);
      } else {
        out += value;
      }
    } catch (const StageError& e) {
      throw StageError(where + ": placeholder {{" + body + "}}: " + e.what());
    }
    pos = close + 2;
  }
  out += text.substr(pos);
  return out;
}

}  // namespace potts::provenance
