#include "stages/runtime/sweep.h"

#include <cmath>

#include "lib/core/stats.h"

namespace potts {

ChunkRows::ChunkRows(Stage& stage, std::int64_t chunks, std::vector<std::string> columns, SweepKey point,
                     SweepKey realisation)
    : columns_(std::move(columns)), point_(std::move(point)), realisation_(std::move(realisation)) {
  auto index_of = [&](const std::string& name) {
    for (std::size_t i = 0; i < columns_.size(); ++i)
      if (columns_[i] == name) return i;
    throw StageError("merge: key column '" + name + "' is not among the merged columns");
  };
  const std::size_t pi = index_of(point_.column), ri = index_of(realisation_.column);
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::string path = stage.input("chunk" + std::to_string(c) + "/realisations.csv");
    const auto table = read_csv(path);
    std::vector<const std::vector<double>*> cells;
    for (const auto& name : columns_) cells.push_back(&csv_column(table, path, name));
    for (std::size_t r = 0; r < cells[0]->size(); ++r) {  // read_csv: every column has every row
      std::vector<double> row;
      for (const auto* col : cells) row.push_back((*col)[r]);
      const std::string where = path + ": data row " + std::to_string(r + 1) + ", column '";
      const auto key = std::make_pair(csv_index(row[pi], point_.max, where + point_.column + "'"),
                                      csv_index(row[ri], realisation_.max, where + realisation_.column + "'"));
      if (!rows_.emplace(key, std::move(row)).second)
        throw StageError(path + ": " + point_.column + " " + std::to_string(key.first) + ", " + realisation_.column +
                         " " + std::to_string(key.second) + " appears twice among the chunks");
    }
  }
}

const std::vector<double>& ChunkRows::at(std::uint64_t point, std::uint64_t realisation) const {
  auto it = rows_.find({point, realisation});
  if (it == rows_.end())
    throw StageError("merge: " + point_.column + " " + std::to_string(point) + ", " + realisation_.column + " " +
                     std::to_string(realisation) + " missing from every chunk");
  return it->second;
}

void ChunkRows::check_count(std::size_t expected) const {
  if (rows_.size() != expected)
    throw StageError("merge: the chunks hold " + std::to_string(rows_.size()) + " realisations, the grid " +
                     std::to_string(expected));
}

std::size_t best_restart(const std::vector<double>& train_losses) { return argmin(train_losses); }

void SharedOptimum::check(double value, const std::string& path) {
  if (std::isnan(value_)) value_ = value;
  if (value != value_)
    throw StageError(path + ": optimal_test_loss differs from the other runs' (not the same test set?)");
}

}  // namespace potts
