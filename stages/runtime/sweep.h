// The merges of the paper's sweeps share these helpers (tools/sweep.bzl
// declares the sweeps):
//  * a chunked sweep (gaussian_sim, potts_alpha) splits its realisations
//    over chunk stages, each writing realisations.csv; the merge reads every
//    chunk's rows, keyed by (grid point, realisation), and refuses a row
//    that two chunks hold or that no chunk holds;
//  * a restart sweep (train, perturb) runs one model from several seeds and
//    judges it on the restart with the lowest training loss;
//  * every run of one sweep is scored against the same test set, so the
//    optimal test loss they report must agree.
//
// Tested by //stages/runtime:sweep_test.
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "stages/runtime/stage.h"

namespace potts {

// A key column of the chunk tables and the largest value it may hold.
struct SweepKey {
  std::string column;
  std::uint64_t max;
};

// The rows of every chunk's table, in the order of `columns`, by
// (grid point, realisation).
class ChunkRows {
 public:
  // Reads inputs "chunk<c>/realisations.csv" for c = 0..chunks-1. Errors
  // name the file, the row and the column: a missing column, a key that is
  // not a whole number in range, a (point, realisation) held twice.
  ChunkRows(Stage& stage, std::int64_t chunks, std::vector<std::string> columns, SweepKey point, SweepKey realisation);

  // The row of (point, realisation); an error if no chunk holds it.
  const std::vector<double>& at(std::uint64_t point, std::uint64_t realisation) const;
  // An error unless the chunks hold exactly `expected` rows: with at() over
  // the whole grid, no row outside the grid.
  void check_count(std::size_t expected) const;
  const std::vector<std::string>& columns() const { return columns_; }

 private:
  std::vector<std::string> columns_;
  SweepKey point_, realisation_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<double>> rows_;
};

// The restart a sweep is judged on: the lowest training loss, the first one
// on ties.
std::size_t best_restart(const std::vector<double>& train_losses);

// The optimal test loss shared by the runs of one sweep: the first call
// records it, later ones must report the same value (the same test set).
class SharedOptimum {
 public:
  void check(double value, const std::string& path);
  double value() const { return value_; }

 private:
  double value_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace potts
