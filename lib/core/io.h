// Output files: atomic writing, hashing, HDF5 and CSV.
//
// Every writer goes through write_atomic: the content goes to
// "<path>.tmp.<pid>", is flushed, and is renamed over <path> only when
// complete, so an interrupted stage never leaves a half-written result and
// an existing result is never lost to a failed run.
//
// Tested by //tests/core:core_test, //tests/core:stage_test.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <armadillo>
#include <nlohmann/json.hpp>

namespace potts {

// Calls write(tmp_path), then renames tmp_path to path. If write throws, the
// temporary is removed and the exception propagates; path is untouched.
void write_atomic(const std::string& path, const std::function<void(const std::string& tmp)>& write);
void write_text_atomic(const std::string& path, const std::string& text);
std::string read_text(const std::string& path);
// A JSON file (a stage summary, a merge input); errors name the file.
nlohmann::json read_json(const std::string& path);

// The number at `path` of a JSON document: nested keys joined by '.'
// ("factored.gap.mean"). `origin` names the document (its file) for the
// error, a StageError naming it and the path when a key is missing or the
// value is not a number. The one way every stage reads a number from an
// upstream summary.
double json_number(const nlohmann::json& doc, const std::string& path, const std::string& origin);
// The same from text; `path` names it in errors.
nlohmann::json parse_json(const std::string& text, const std::string& path);

// Lower-case hex SHA-256 of a file's bytes (OpenSSL).
std::string sha256_file(const std::string& path);
std::string sha256_text(const std::string& text);

// Deterministic HDF5 files: object modification times are not tracked, so
// the same data give the same bytes. Matrices are stored row-major with the
// shape (rows, cols) that Python's h5py shows as-is.
class H5Writer {
 public:
  void matrix(const std::string& name, const arma::mat& m) { mats_[name] = m; }
  void imatrix(const std::string& name, const arma::imat& m) { imats_[name] = m; }
  void scalar(const std::string& name, double x) { mats_[name] = arma::mat(1, 1, arma::fill::value(x)); }
  void save(const std::string& path) const;  // atomic

 private:
  std::map<std::string, arma::mat> mats_;
  std::map<std::string, arma::imat> imats_;
};

// Readers name the file and the dataset in their errors. A dataset must be
// 2-d with at most kMaxH5Elements elements; other element types are
// converted by HDF5 where it can (an error where it cannot).
constexpr unsigned long long kMaxH5Elements = 1ull << 28;  // 2 GiB of doubles
arma::mat h5_read_matrix(const std::string& path, const std::string& name);
arma::imat h5_read_imatrix(const std::string& path, const std::string& name);
// A 1 x 1 dataset holding a finite value in [lo, hi].
double h5_read_scalar(const std::string& path, const std::string& name, double lo, double hi);
// Throws naming the file and dataset if m holds NaN or infinity.
void h5_check_finite(const std::string& path, const std::string& name, const arma::mat& m);

// A CSV table with a header, written atomically, numbers with 17 significant
// digits so they round-trip exactly.
class CsvTable {
 public:
  explicit CsvTable(std::vector<std::string> columns) : columns_(std::move(columns)) {}
  void row(const std::vector<double>& values);
  void save(const std::string& path) const;
  std::string text() const;

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> rows_;
};

// Reads a CSV written by CsvTable: column name -> values. Column names must
// be distinct and non-empty; every cell must be a number as a whole ("nan"
// and "inf" included: callers check ranges).
std::map<std::string, std::vector<double>> read_csv(const std::string& path);
std::map<std::string, std::vector<double>> parse_csv(const std::string& text, const std::string& path);
// A table cell that must be a whole number in [0, hi] (an index, a count);
// `where` names the file, line and column in the error.
std::uint64_t csv_index(double x, std::uint64_t hi, const std::string& where);
// Column `column` of a table read from `path`; error naming both if missing.
const std::vector<double>& csv_column(const std::map<std::string, std::vector<double>>& table, const std::string& path,
                                      const std::string& column);

}  // namespace potts
