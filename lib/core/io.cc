#include "lib/core/io.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <hdf5.h>
#include <openssl/evp.h>

#include "lib/core/error.h"

namespace potts {

void write_atomic(const std::string& path, const std::function<void(const std::string& tmp)>& write) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  try {
    write(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw StageError(path + ": cannot rename temporary output into place");
  }
}

void write_text_atomic(const std::string& path, const std::string& text) {
  write_atomic(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw StageError(path + ": cannot open for writing");
    out << text;
    out.flush();
    if (!out) throw StageError(path + ": write failed");
  });
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StageError(path + ": cannot open for reading");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json read_json(const std::string& path) { return parse_json(read_text(path), path); }

nlohmann::json parse_json(const std::string& text, const std::string& path) {
  try {
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw StageError(path + ": not valid JSON (" + e.what() + ")");
  }
}

static std::string hex(const unsigned char* d, unsigned n) {
  std::ostringstream os;
  for (unsigned i = 0; i < n; ++i) os << std::hex << std::setw(2) << std::setfill('0') << int(d[i]);
  return os.str();
}

std::string sha256_text(const std::string& text) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  EVP_Digest(text.data(), text.size(), md, &n, EVP_sha256(), nullptr);
  return hex(md, n);
}

std::string sha256_file(const std::string& path) { return sha256_text(read_text(path)); }

namespace {

struct H5Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~H5Handle() {
    if (id >= 0) close(id);
  }
};

void check(hid_t id, const std::string& what) {
  if (id < 0) throw StageError(what);
}

template <typename T>
void write_dataset(hid_t file, const std::string& name, const arma::Mat<T>& m, hid_t type, const std::string& path) {
  hsize_t dims[2] = {m.n_rows, m.n_cols};
  H5Handle space{H5Screate_simple(2, dims, nullptr), H5Sclose};
  H5Handle dcpl{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
  H5Pset_obj_track_times(dcpl.id, 0);  // no timestamps: same data, same bytes
  H5Handle set{H5Dcreate2(file, name.c_str(), type, space.id, H5P_DEFAULT, dcpl.id, H5P_DEFAULT), H5Dclose};
  check(set.id, path + ": cannot create dataset '" + name + "'");
  if (m.n_elem == 0) return;      // nothing to write (and no transpose of an empty matrix: see read_dataset)
  arma::Mat<T> rowmajor = m.t();  // HDF5 is row-major, Armadillo column-major
  if (H5Dwrite(set.id, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rowmajor.memptr()) < 0)
    throw StageError(path + ": cannot write dataset '" + name + "'");
}

template <typename T>
arma::Mat<T> read_dataset(const std::string& path, const std::string& name, hid_t type) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H5Handle file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  check(file.id, path + ": cannot open as HDF5");
  if (H5Lexists(file.id, name.c_str(), H5P_DEFAULT) <= 0) throw StageError(path + ": dataset '" + name + "' missing");
  H5Handle set{H5Dopen2(file.id, name.c_str(), H5P_DEFAULT), H5Dclose};
  check(set.id, path + ": cannot open dataset '" + name + "'");
  // Numbers only, of a sane width: HDF5 converts between numeric types, but
  // a corrupt type (a string, a 4 GB "double") must not reach H5Dread.
  H5Handle ftype{H5Dget_type(set.id), H5Tclose};
  check(ftype.id, path + ": dataset '" + name + "': cannot read its element type");
  const H5T_class_t cls = H5Tget_class(ftype.id);
  const std::size_t width = H5Tget_size(ftype.id);
  if ((cls != H5T_INTEGER && cls != H5T_FLOAT) || width == 0 || width > 16)
    throw StageError(path + ": dataset '" + name + "': expected numbers (integer or floating point)");
  H5Handle space{H5Dget_space(set.id), H5Sclose};
  int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank != 2) throw StageError(path + ": dataset '" + name + "': expected a 2-d array");
  hsize_t dims[2];
  if (H5Sget_simple_extent_dims(space.id, dims, nullptr) < 0)
    throw StageError(path + ": dataset '" + name + "': cannot read its shape");
  // A corrupt or hostile header must not ask for an absurd allocation.
  if (dims[0] > kMaxH5Elements || dims[1] > kMaxH5Elements || (dims[0] && dims[1] > kMaxH5Elements / dims[0]))
    throw StageError(path + ": dataset '" + name + "': shape " + std::to_string(dims[0]) + " x " +
                     std::to_string(dims[1]) + " exceeds " + std::to_string(kMaxH5Elements) + " elements");
  // A truncated or corrupt file can claim more data than it holds: check
  // before allocating (contiguous layout: storage is the whole dataset).
  hsize_t file_size = 0;
  const hsize_t stored = H5Dget_storage_size(set.id);
  if (H5Fget_filesize(file.id, &file_size) < 0 || stored > file_size)
    throw StageError(path + ": dataset '" + name + "' extends past the end of the file (truncated or corrupt)");
  H5Handle dcpl{H5Dget_create_plist(set.id), H5Pclose};
  if (H5Pget_layout(dcpl.id) != H5D_CHUNKED && stored < dims[0] * dims[1] * width)
    throw StageError(path + ": dataset '" + name + "': shape " + std::to_string(dims[0]) + " x " +
                     std::to_string(dims[1]) + " needs more data than the file stores (truncated or corrupt)");
  arma::Mat<T> rowmajor(dims[1], dims[0]);
  // Empty: no data to read, and no transpose (Armadillo's transpose of a
  // 1 x 0 matrix binds a reference to its null memory: undefined behaviour).
  if (rowmajor.n_elem == 0) return arma::Mat<T>(dims[0], dims[1]);
  if (H5Dread(set.id, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rowmajor.memptr()) < 0)
    throw StageError(path + ": cannot read dataset '" + name + "'");
  return rowmajor.t();
}

}  // namespace

void H5Writer::save(const std::string& path) const {
  write_atomic(path, [&](const std::string& tmp) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5Handle fcpl{H5Pcreate(H5P_FILE_CREATE), H5Pclose};
    H5Pset_obj_track_times(fcpl.id, 0);
    H5Handle file{H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl.id, H5P_DEFAULT), H5Fclose};
    check(file.id, path + ": cannot create HDF5 file");
    for (const auto& [name, m] : mats_) write_dataset(file.id, name, m, H5T_NATIVE_DOUBLE, path);
    for (const auto& [name, m] : imats_) write_dataset(file.id, name, m, H5T_NATIVE_LLONG, path);
  });
}

arma::mat h5_read_matrix(const std::string& path, const std::string& name) {
  return read_dataset<double>(path, name, H5T_NATIVE_DOUBLE);
}

arma::imat h5_read_imatrix(const std::string& path, const std::string& name) {
  return read_dataset<arma::sword>(path, name, H5T_NATIVE_LLONG);
}

double h5_read_scalar(const std::string& path, const std::string& name, double lo, double hi) {
  const arma::mat m = h5_read_matrix(path, name);
  if (m.n_rows != 1 || m.n_cols != 1)
    throw StageError(path + ": dataset '" + name + "': expected a 1 x 1 scalar, got " + std::to_string(m.n_rows) +
                     " x " + std::to_string(m.n_cols));
  const double x = m(0, 0);
  if (!std::isfinite(x) || x < lo || x > hi) {
    std::ostringstream os;
    os << path << ": dataset '" << name << "': value " << x << " outside [" << lo << ", " << hi << "]";
    throw StageError(os.str());
  }
  return x;
}

void h5_check_finite(const std::string& path, const std::string& name, const arma::mat& m) {
  if (!m.is_finite()) throw StageError(path + ": dataset '" + name + "' holds NaN or infinite values");
}

void CsvTable::row(const std::vector<double>& values) {
  if (values.size() != columns_.size()) throw StageError("CSV row has the wrong number of columns");
  rows_.push_back(values);
}

std::string CsvTable::text() const {
  std::ostringstream os;
  for (std::size_t c = 0; c < columns_.size(); ++c) os << (c ? "," : "") << columns_[c];
  os << "\n" << std::setprecision(17);
  for (const auto& r : rows_) {
    for (std::size_t c = 0; c < r.size(); ++c) os << (c ? "," : "") << r[c];
    os << "\n";
  }
  return os.str();
}

void CsvTable::save(const std::string& path) const { write_text_atomic(path, text()); }

std::map<std::string, std::vector<double>> read_csv(const std::string& path) {
  return parse_csv(read_text(path), path);
}

std::map<std::string, std::vector<double>> parse_csv(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  std::string line, cell;
  if (!std::getline(in, line)) throw StageError(path + ": empty CSV file");
  std::vector<std::string> cols;
  std::istringstream hs(line);
  while (std::getline(hs, cell, ',')) cols.push_back(cell);
  std::map<std::string, std::vector<double>> out;
  for (const auto& c : cols) {
    if (c.empty()) throw StageError(path + ": header: empty column name");
    if (!out.emplace(c, std::vector<double>()).second)
      throw StageError(path + ": header: column '" + c + "' appears twice");
  }
  int lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    std::istringstream ls(line);
    std::size_t c = 0;
    while (std::getline(ls, cell, ',')) {
      if (c >= cols.size()) throw StageError(path + ": line " + std::to_string(lineno) + ": too many fields");
      // The whole cell must be a number (std::stod alone accepts "1x").
      std::size_t used = 0;
      double x = 0;
      try {
        x = std::stod(cell, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != cell.size())
        throw StageError(path + ": line " + std::to_string(lineno) + ", column '" + cols[c] +
                         "': expected a number, got '" + cell + "'");
      out[cols[c]].push_back(x);
      ++c;
    }
    if (c != cols.size()) throw StageError(path + ": line " + std::to_string(lineno) + ": too few fields");
  }
  return out;
}

std::uint64_t csv_index(double x, std::uint64_t hi, const std::string& where) {
  if (!(x >= 0 && x <= double(hi) && x == std::floor(x))) {
    std::ostringstream os;
    os << where << ": expected a whole number in 0.." << hi << ", got " << x;
    throw StageError(os.str());
  }
  return std::uint64_t(x);
}

const std::vector<double>& csv_column(const std::map<std::string, std::vector<double>>& table, const std::string& path,
                                      const std::string& column) {
  auto it = table.find(column);
  if (it == table.end()) throw StageError(path + ": column '" + column + "' missing");
  return it->second;
}

double json_number(const nlohmann::json& doc, const std::string& path, const std::string& origin) {
  const nlohmann::json* p = &doc;
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!p->is_object() || !p->contains(key)) throw StageError(origin + ": key '" + path + "' is missing");
    p = &(*p)[key];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (!p->is_number()) throw StageError(origin + ": key '" + path + "' is not a number");
  const double v = p->get<double>();
  if (!std::isfinite(v)) throw StageError(origin + ": key '" + path + "' is not finite");
  return v;
}

}  // namespace potts
