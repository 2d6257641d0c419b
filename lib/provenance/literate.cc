#include "lib/provenance/literate.h"

#include <algorithm>
#include <cstdio>

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
  return s.empty() ? "none" : s;
}

}  // namespace

std::string fill_placeholders(const std::string& text, const std::map<std::string, StageDocs>& stages,
                              const std::string& origin) {
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
    auto dot = body.find('.');
    if (dot == std::string::npos) throw StageError(where + ": placeholder {{" + body + "}}: expected {{stage.key}}");
    const std::string key = body.substr(0, dot);
    auto st = stages.find(key);
    if (st == stages.end()) {
      std::string have;
      for (const auto& [k, v] : stages) have += (have.empty() ? "" : ", ") + k;
      throw StageError(where + ": placeholder {{" + body + "}}: no stage '" + key + "' among the inputs (" + have +
                       ")");
    }
    std::string path = body.substr(dot + 1);
    const nlohmann::json* j = &st->second.summary;
    std::string file = "summary.json";
    if (path.rfind("provenance.", 0) == 0) {
      j = &st->second.provenance;
      file = "provenance.json";
      path = path.substr(11);
    }
    std::size_t start = 0;
    while (true) {
      auto d = path.find('.', start);
      const std::string part = path.substr(start, d == std::string::npos ? std::string::npos : d - start);
      if (j->is_array() && !part.empty() && part.find_first_not_of("0123456789") == std::string::npos &&
          std::stoul(part) < j->size()) {
        j = &(*j)[std::stoul(part)];
      } else if (j->is_object() && j->contains(part)) {
        j = &(*j)[part];
      } else {
        throw StageError(where + ": placeholder {{" + body + "}}: " + key + "/" + file + " has no '" + part +
                         "' (keys there: " + keys_of(*j) + ")");
      }
      if (d == std::string::npos) break;
      start = d + 1;
    }
    try {
      out += format_value(*j, fmt);
    } catch (const StageError& e) {
      throw StageError(where + ": placeholder {{" + body + "}}: " + e.what());
    }
    pos = close + 2;
  }
  out += text.substr(pos);
  return out;
}

}  // namespace potts::provenance
