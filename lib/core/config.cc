#include "lib/core/config.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace potts {

Config::Config(nlohmann::json j, std::string origin, std::string prefix)
    : j_(std::move(j)), origin_(std::move(origin)), prefix_(std::move(prefix)) {}

Config Config::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw StageError(path + ": cannot open configuration file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

Config Config::parse(const std::string& text, const std::string& origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // syntax, or a number out of double's range
    throw StageError(origin + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw StageError(origin + ": expected a JSON object at the top level");
  return Config(std::move(j), origin, "");
}

void Config::fail(const std::string& key, const std::string& what) const {
  throw StageError(origin_ + ": key '" + prefix_ + key + "': " + what);
}

bool Config::has(const std::string& key) const { return j_.contains(key); }

const nlohmann::json& Config::at(const std::string& key, const char* expected) {
  read_.insert(key);
  if (!j_.contains(key)) fail(key, std::string("missing; expected ") + expected);
  return j_.at(key);
}

static std::string range_text(double lo, double hi, bool open) {
  std::ostringstream os;
  os << (open ? "(" : "[") << lo << ", " << hi << (open ? ")" : "]");
  return os.str();
}

double Config::number(const std::string& key, double lo, double hi) {
  const auto& v = at(key, "a number");
  if (!v.is_number()) fail(key, "expected a number, got " + std::string(v.type_name()));
  double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    fail(key, "value " + v.dump() + " out of range; expected a number in " + range_text(lo, hi, false));
  return x;
}

double Config::number_open(const std::string& key, double lo, double hi) {
  const auto& v = at(key, "a number");
  if (!v.is_number()) fail(key, "expected a number, got " + std::string(v.type_name()));
  double x = v.get<double>();
  if (!std::isfinite(x) || x <= lo || x >= hi)
    fail(key, "value " + v.dump() + " out of range; expected a number in " + range_text(lo, hi, true));
  return x;
}

std::int64_t Config::integer(const std::string& key, std::int64_t lo, std::int64_t hi) {
  const auto& v = at(key, "an integer");
  if (!v.is_number_integer()) fail(key, "expected an integer, got " + v.dump());
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
    fail(key, "value " + v.dump() + " out of range; too large for a 64-bit signed integer");
  std::int64_t x = v.get<std::int64_t>();
  if (x < lo || x > hi) {
    std::ostringstream os;
    os << "value " << x << " out of range; expected an integer in [" << lo << ", " << hi << "]";
    fail(key, os.str());
  }
  return x;
}

bool Config::boolean(const std::string& key) {
  const auto& v = at(key, "true or false");
  if (!v.is_boolean()) fail(key, "expected true or false, got " + v.dump());
  return v.get<bool>();
}

std::string Config::string(const std::string& key) {
  const auto& v = at(key, "a string");
  if (!v.is_string()) fail(key, "expected a string, got " + v.dump());
  return v.get<std::string>();
}

std::string Config::choice(const std::string& key, const std::vector<std::string>& allowed) {
  std::string all;
  for (const auto& a : allowed) all += (all.empty() ? "" : ", ") + ("\"" + a + "\"");
  std::string s = string(key);
  for (const auto& a : allowed)
    if (s == a) return s;
  fail(key, "value \"" + s + "\" not allowed; expected one of " + all);
}

std::vector<double> Config::numbers(const std::string& key, double lo, double hi) {
  const auto& v = at(key, "a non-empty list of numbers");
  if (!v.is_array() || v.empty()) fail(key, "expected a non-empty list of numbers, got " + v.dump());
  std::vector<double> out;
  for (const auto& e : v) {
    if (!e.is_number()) fail(key, "expected a list of numbers, found element " + e.dump());
    double x = e.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi)
      fail(key, "element " + e.dump() + " out of range; expected numbers in " + range_text(lo, hi, false));
    out.push_back(x);
  }
  return out;
}

std::vector<std::int64_t> Config::integers(const std::string& key, std::int64_t lo, std::int64_t hi) {
  const auto& v = at(key, "a non-empty list of integers");
  if (!v.is_array() || v.empty()) fail(key, "expected a non-empty list of integers, got " + v.dump());
  std::vector<std::int64_t> out;
  for (const auto& e : v) {
    if (!e.is_number_integer()) fail(key, "expected a list of integers, found element " + e.dump());
    if (e.is_number_unsigned() && e.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      fail(key, "element " + e.dump() + " out of range; too large for a 64-bit signed integer");
    std::int64_t x = e.get<std::int64_t>();
    if (x < lo || x > hi)
      fail(key,
           "element " + e.dump() + " out of range; expected integers in " + range_text(double(lo), double(hi), false));
    out.push_back(x);
  }
  return out;
}

std::vector<std::string> Config::strings(const std::string& key) {
  const auto& v = at(key, "a non-empty list of strings");
  if (!v.is_array() || v.empty()) fail(key, "expected a non-empty list of strings, got " + v.dump());
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (!e.is_string() || e.get<std::string>().empty())
      fail(key, "expected a list of non-empty strings, found element " + e.dump());
    out.push_back(e.get<std::string>());
  }
  return out;
}

Config Config::section(const std::string& key) {
  const auto& v = at(key, "an object");
  if (!v.is_object()) fail(key, "expected an object, got " + v.dump());
  return Config(v, origin_, prefix_ + key + ".");
}

void Config::finish() const {
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (it.key().rfind("_", 0) == 0) continue;  // "_comment" and the like
    if (!read_.count(it.key()))
      throw StageError(origin_ + ": unknown key '" + prefix_ + it.key() + "' (misspelt, or not used by this stage)");
  }
}

}  // namespace potts
