// Unit tests of the stage plumbing: configuration validation and its error
// messages, random streams, atomic writing, hashing, HDF5 determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include "lib/core/config.h"
#include "tests/util/test_util.h"
#include "lib/core/io.h"
#include "lib/core/rng.h"
#include "stages/runtime/stage.h"

namespace potts {
namespace {

using testing_util::error_of;
using testing_util::tmpdir;

TEST(Config, ReadsTypedValues) {
  auto c = Config::parse(R"({"L": 20, "beta": 0.5, "kind": "identity", "grid": [1, 2.5], "ok": true})", "c.json");
  EXPECT_EQ(c.integer("L", 2, 100), 20);
  EXPECT_DOUBLE_EQ(c.number("beta", 0, 10), 0.5);
  EXPECT_EQ(c.choice("kind", {"identity", "gaussian"}), "identity");
  EXPECT_EQ(c.numbers("grid"), (std::vector<double>{1, 2.5}));
  EXPECT_TRUE(c.boolean("ok"));
  EXPECT_NO_THROW(c.finish());
}

TEST(Config, UnknownKeyIsNamed) {
  auto c = Config::parse(R"({"L": 20, "sweeps_btween": 10})", "sample.json");
  c.integer("L", 2, 100);
  std::string e = error_of([&] { c.finish(); });
  EXPECT_NE(e.find("sample.json"), std::string::npos) << e;
  EXPECT_NE(e.find("'sweeps_btween'"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key"), std::string::npos) << e;
}

TEST(Config, MissingWrongTypeAndOutOfRangeAreNamed) {
  auto c = Config::parse(R"({"L": "twenty", "C": 1, "x": 2.5, "t": 1.0})", "f.json");
  std::string e = error_of([&] { c.integer("M", 1, 10); });
  EXPECT_NE(e.find("f.json: key 'M': missing"), std::string::npos) << e;
  e = error_of([&] { c.integer("L", 2, 100); });
  EXPECT_NE(e.find("key 'L': expected an integer"), std::string::npos) << e;
  e = error_of([&] { c.integer("C", 2, 100); });
  EXPECT_NE(e.find("key 'C': value 1 out of range"), std::string::npos) << e;
  e = error_of([&] { c.integer("x", 0, 10); });
  EXPECT_NE(e.find("key 'x': expected an integer"), std::string::npos) << e;
  e = error_of([&] { c.number_open("t", 0.0, 1.0); });
  EXPECT_NE(e.find("key 't'"), std::string::npos) << e;
  EXPECT_NE(e.find("(0, 1)"), std::string::npos) << e;
}

TEST(Config, NestedSectionsNameThePath) {
  auto c = Config::parse(R"({"opt": {"lr": -1, "typo": 1}})", "t.json");
  auto s = c.section("opt");
  std::string e = error_of([&] { s.number("lr", 0, 1); });
  EXPECT_NE(e.find("'opt.lr'"), std::string::npos) << e;
  e = error_of([&] { s.finish(); });
  EXPECT_NE(e.find("'opt.typo'"), std::string::npos) << e;
}

TEST(Config, BadJsonNamesTheFile) {
  std::string e = error_of([] { Config::parse("{\"L\": }", "broken.json"); });
  EXPECT_NE(e.find("broken.json: not valid JSON"), std::string::npos) << e;
}

TEST(Rng, SameSeedAndStreamSameSequence) {
  Rng a(42, 7), b(42, 7), c(42, 8), d(43, 7);
  bool differ_c = false, differ_d = false;
  for (int i = 0; i < 100; ++i) {
    auto x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    differ_c |= x != c.next_u64();
    differ_d |= x != d.next_u64();
  }
  EXPECT_TRUE(differ_c);
  EXPECT_TRUE(differ_d);
}

TEST(Rng, KnownFirstOutputsPinTheGenerator) {
  // Philox4x32-10 with key (0,0), counter (0,0,0,0): the first four words
  // are the Random123 known-answer vector 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
  Rng r(0, 0);
  EXPECT_EQ(r.next_u32(), 0x6627e8d5u);
  EXPECT_EQ(r.next_u32(), 0xe169c58du);
  EXPECT_EQ(r.next_u32(), 0xbc57ac4cu);
  EXPECT_EQ(r.next_u32(), 0x9b00dbd8u);
}

TEST(Rng, MomentsOfUniformNormalAndBelow) {
  // n = 200000: the standard error of a mean of unit variance is 0.0022;
  // the tolerances below are 5 standard errors.
  Rng r(1, 2);
  const int n = 200000;
  double su = 0, sn = 0, sn2 = 0;
  std::vector<int> counts(7, 0);
  for (int i = 0; i < n; ++i) {
    double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    su += u;
    double z = r.normal();
    sn += z;
    sn2 += z * z;
    counts[r.below(7)]++;
  }
  EXPECT_NEAR(su / n, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(sn / n, 0.0, 5 * std::sqrt(1.0 / n));
  EXPECT_NEAR(sn2 / n, 1.0, 5 * std::sqrt(2.0 / n));
  for (int c : counts) EXPECT_NEAR(c, n / 7.0, 5 * std::sqrt(n / 7.0));
}

TEST(Io, AtomicWriteKeepsOldFileOnFailure) {
  std::string p = tmpdir() + "/atomic.txt";
  write_text_atomic(p, "old");
  EXPECT_THROW(write_atomic(p,
                            [](const std::string& tmp) {
                              std::ofstream(tmp) << "half";
                              throw StageError("interrupted");
                            }),
               StageError);
  EXPECT_EQ(read_text(p), "old");
  std::ifstream leftover(p + ".tmp." + std::to_string(::getpid()));
  EXPECT_FALSE(leftover.good());
}

TEST(Io, Sha256KnownAnswer) {
  EXPECT_EQ(sha256_text("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Io, Hdf5RoundTripAndSameBytes) {
  arma::mat m = {{1.5, -2, 3}, {4, 5, 6.25}};
  arma::imat s = {{0, 1}, {2, 3}, {4, 5}};
  std::string p1 = tmpdir() + "/a.h5", p2 = tmpdir() + "/b.h5";
  H5Writer w;
  w.matrix("m", m);
  w.imatrix("s", s);
  w.save(p1);
  w.save(p2);
  EXPECT_TRUE(arma::approx_equal(h5_read_matrix(p1, "m"), m, "absdiff", 0.0));
  EXPECT_TRUE(arma::all(arma::vectorise(h5_read_imatrix(p1, "s") == s)));
  EXPECT_EQ(sha256_file(p1), sha256_file(p2));
  std::string e = error_of([&] { h5_read_matrix(p1, "nope"); });
  EXPECT_NE(e.find("dataset 'nope' missing"), std::string::npos) << e;
}

TEST(Io, CsvRoundTripsExactly) {
  CsvTable t({"alpha", "loss"});
  t.row({0.1, 1.0 / 3.0});
  t.row({2, 1e-300});
  std::string p = tmpdir() + "/t.csv";
  t.save(p);
  auto r = read_csv(p);
  EXPECT_EQ(r["alpha"], (std::vector<double>{0.1, 2}));
  EXPECT_EQ(r["loss"], (std::vector<double>{1.0 / 3.0, 1e-300}));
}

TEST(Stage, UndeclaredOutputAndMissingInputAreErrors) {
  Stage s("x", Config::parse("{}", "c.json"), 1, {{"a/b.h5", "/p"}}, {{"summary.json", "/q"}});
  EXPECT_NE(error_of([&] { s.output("model.h5"); }).find("output 'model.h5' was not declared"), std::string::npos);
  EXPECT_NE(error_of([&] { s.input("a/c.h5"); }).find("input 'a/c.h5' was not given"), std::string::npos);
  EXPECT_EQ(s.input("a/b.h5"), "/p");
}

}  // namespace
}  // namespace potts
