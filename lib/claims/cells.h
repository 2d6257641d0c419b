// The pieces every group of claims builds its cells from (internal to
// lib/claims): the test level, number formatting, an estimate with its
// standard error, and a cell of the claims table.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "lib/claims/claims.h"
#include "lib/core/error.h"
#include "lib/core/stats.h"

namespace potts {
namespace claims {
namespace detail {

constexpr double kLevel = 0.05;  // one-sided level of every test

inline std::string fmt(const char* f, double a, double b) {
  char buf[200];
  std::snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

inline std::string fmt3(const char* f, double a, double b, double c) {
  char buf[240];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

// One number of a claim per data set (or per seed), and its estimate.
struct Estimate {
  double value = 0, se = 0;
  int dof = 0;
  std::string basis;
};

inline Estimate estimate(const std::vector<double>& x, const std::string& unit) {
  if (x.empty()) throw StageError("claims: no values to estimate from");
  const MeanSe m = mean_se(x);
  Estimate e;
  e.value = m.mean;
  e.se = x.size() > 1 ? m.se : 0.0;
  e.dof = int(x.size()) - 1;
  e.basis = std::to_string(x.size()) + " " + unit;
  return e;
}

inline Cell make_cell(std::string id, std::string statement, const Estimate& e, Verdict v, std::string number,
                      std::string rule) {
  Cell c;
  c.id = std::move(id);
  c.statement = std::move(statement);
  c.value = e.value;
  c.se = e.se;
  c.verdict = v;
  c.number = std::move(number);
  c.basis = e.basis;
  c.rule = std::move(rule);
  return c;
}

}  // namespace detail
}  // namespace claims
}  // namespace potts
