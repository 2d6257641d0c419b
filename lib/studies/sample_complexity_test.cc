// The pieces of one sample-complexity realisation (fig. 3 right):
// lib/studies/sample_complexity.h.
#include "lib/studies/sample_complexity.h"

#include <gtest/gtest.h>

#include <set>

#include "lib/core/config.h"
#include "lib/core/error.h"

namespace potts {
namespace {

TEST(SampleComplexity, RandomSubsetIsDistinctSortedAndSeeded) {
  arma::uvec a = random_subset(100, 30, 1, 5), b = random_subset(100, 30, 1, 5), c = random_subset(100, 30, 1, 6);
  EXPECT_TRUE(arma::all(a == b));
  EXPECT_FALSE(arma::all(a == c));
  std::set<arma::uword> u(a.begin(), a.end());
  EXPECT_EQ(u.size(), 30u);
  EXPECT_TRUE(a.is_sorted());
  EXPECT_LT(a.max(), 100u);
  EXPECT_EQ(random_subset(10, 10, 1, 1).n_elem, 10u);
  EXPECT_THROW(random_subset(10, 11, 1, 1), StageError);
}

TEST(SampleComplexity, InitSeedsAreDistinctPerRealisation) {
  std::set<std::uint64_t> s;
  for (std::uint64_t M : {5, 10, 3000})
    for (std::uint64_t r = 0; r < 30; ++r) s.insert(realisation_init_seed(1, M, r));
  EXPECT_EQ(s.size(), 90u);
}

TEST(SampleComplexity, RealisationsPerMFromAListOrOneCount) {
  Config one = Config::parse(R"({"realisations": 30})", "plan");
  EXPECT_EQ(realisations_per_M(one, 3), (std::vector<arma::uword>{30, 30, 30}));
  Config list = Config::parse(R"({"realisations": 300, "realisations_by_M": [300, 3000, 300]})", "plan");
  EXPECT_EQ(realisations_per_M(list, 3), (std::vector<arma::uword>{300, 3000, 300}));
  Config wrong = Config::parse(R"({"realisations_by_M": [300, 3000]})", "plan");
  EXPECT_THROW(realisations_per_M(wrong, 3), StageError);
}

}  // namespace
}  // namespace potts
