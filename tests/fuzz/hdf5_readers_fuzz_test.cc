// The HDF5 files stages read, fuzzed through their readers: the sample
// stage's model/train/test files (read_sample_data: train, perturb, the
// potts_alpha plan and fit, the diversity fit) and the Gaussian model file
// (gaussian::read_model_h5: replica, simulate). Each case takes a small valid
// set and breaks one dataset: wrong shape, NaN/inf/huge/negative values,
// colours out of range, integers where doubles belong and back, or drops
// it. Every case must read or throw a StageError naming the file.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "lib/core/io.h"
#include "lib/gaussian/gaussian.h"
#include "lib/potts/sample_data.h"
#include "tests/fuzz/harness.h"

namespace potts::fuzz {
namespace {

// A dataset as the writer will store it: doubles or 64-bit integers.
struct Dataset {
  arma::mat d;
  arma::imat i;
  bool integer = false;
};
using File = std::map<std::string, Dataset>;

void save(const std::string& path, const File& f) {
  H5Writer w;
  for (const auto& [name, ds] : f) {
    if (ds.integer)
      w.imatrix(name, ds.i);
    else
      w.matrix(name, ds.d);
  }
  w.save(path);
}

const std::vector<double> kNasty = {NAN, INFINITY, -INFINITY, 1e308, -1e308, -1, 0, 1e19, -1e19, 0.5, 1e6, 2e6};

// Breaks one dataset of one file.
void mutate(Mutator& mut, std::vector<File*> files) {
  File& f = *files[mut.below(files.size())];
  if (f.empty()) return;
  auto it = f.begin();
  std::advance(it, long(mut.below(f.size())));
  Dataset& ds = it->second;
  const arma::uword rows = ds.integer ? ds.i.n_rows : ds.d.n_rows, cols = ds.integer ? ds.i.n_cols : ds.d.n_cols;
  switch (mut.below(6)) {
    case 0:
      f.erase(it);
      return;
    case 1: {  // another shape
      const arma::uword r = mut.chance(0.3) ? mut.below(3) : rows + mut.below(3) - 1,
                        c = mut.chance(0.3) ? mut.below(3) : cols + mut.below(3) - 1;
      if (ds.integer)
        ds.i.resize(std::min<arma::uword>(r, 400), std::min<arma::uword>(c, 400));
      else
        ds.d.resize(std::min<arma::uword>(r, 400), std::min<arma::uword>(c, 400));
      return;
    }
    case 2:  // the other element type
      if (ds.integer)
        ds.d = arma::conv_to<arma::mat>::from(ds.i);
      else
        ds.i = arma::conv_to<arma::imat>::from(ds.d);
      ds.integer = !ds.integer;
      return;
    default: {  // nasty values in a few places
      const int n = 1 + int(mut.below(3));
      for (int k = 0; k < n && rows * cols > 0; ++k) {
        const arma::uword at = mut.below(rows * cols);
        const double v = kNasty[mut.below(kNasty.size())];
        if (ds.integer)
          ds.i(at) = std::isfinite(v) && std::fabs(v) < 9e18 ? arma::sword(v) : arma::sword(1) << 62;
        else
          ds.d(at) = v;
      }
    }
  }
}

TEST(Hdf5ReadersFuzz, SampleData) {
  const std::string dir = scratch_dir("sample_data");
  const std::string model = dir + "/model.h5", train = dir + "/train.h5", test = dir + "/test.h5";
  const arma::uword L = 6, C = 4;
  File m0, tr0, te0;
  arma::mat J(L, L, arma::fill::value(0.1)), U(C, C, arma::fill::eye);
  m0["couplings_J"].d = J;
  m0["colour_similarity_U"].d = U;
  m0["beta"].d = arma::mat(1, 1, arma::fill::value(1.5));
  arma::imat s(20, L);
  for (arma::uword k = 0; k < s.n_elem; ++k) s(k) = arma::sword((k * 7) % C);
  tr0["sequences"] = {arma::mat(), s, true};
  te0["sequences"] = {arma::mat(), s.rows(0, 9), true};
  save(model, m0), save(train, tr0), save(test, te0);
  read_sample_data(model, train, test);  // the base is valid

  Mutator mut(61);
  Tally t{"hdf5_sample_data"};
  const long cases = case_budget();
  for (long i = 0; i < cases; ++i) {
    File m = m0, tr = tr0, te = te0;
    const int edits = 1 + int(mut.below(2));
    for (int e = 0; e < edits; ++e) mutate(mut, {&m, &tr, &te});
    save(model, m), save(train, tr), save(test, te);
    t.run([&] { read_sample_data(model, train, test); }, dir, "case " + std::to_string(i));
  }
  fs::remove_all(dir);
  std::cout << t.summary() << std::endl;
  RecordProperty("cases_hdf5_sample_data", int(t.cases));
  EXPECT_GE(t.cases, cases);
  EXPECT_GT(t.ok, 0);
  EXPECT_TRUE(t.findings.empty()) << t.findings.size() << " findings; first: " << t.findings.front();
}

TEST(Hdf5ReadersFuzz, GaussianModel) {
  const std::string dir = scratch_dir("gaussian_model");
  const std::string path = dir + "/model.h5";
  const arma::uword L = 7;
  File f0;
  f0["precision_P"].d = arma::eye(L, L) * 2.0 - 0.1;
  f0["lambda"].d = arma::mat(1, 1, arma::fill::value(0.01));
  f0["masked_index"].d = arma::mat(1, 1, arma::fill::value(3));
  save(path, f0);
  gaussian::read_model_h5(path);  // the base is valid

  Mutator mut(67);
  Tally t{"hdf5_gaussian_model"};
  const long cases = case_budget();
  for (long i = 0; i < cases; ++i) {
    File f = f0;
    const int edits = 1 + int(mut.below(2));
    for (int e = 0; e < edits; ++e) mutate(mut, {&f});
    save(path, f);
    t.run([&] { gaussian::read_model_h5(path); }, path, "case " + std::to_string(i));
  }
  fs::remove_all(dir);
  std::cout << t.summary() << std::endl;
  RecordProperty("cases_hdf5_gaussian_model", int(t.cases));
  EXPECT_GE(t.cases, cases);
  EXPECT_GT(t.ok, 0);
  EXPECT_TRUE(t.findings.empty()) << t.findings.size() << " findings; first: " << t.findings.front();
}

}  // namespace
}  // namespace potts::fuzz
