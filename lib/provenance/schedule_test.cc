// W, T and list schedules on hand-made DAGs whose answers follow by hand.
#include "lib/provenance/schedule.h"

#include <gtest/gtest.h>

#include "lib/core/error.h"

namespace potts::provenance {
namespace {

// a (1) -> b (2), c (3) -> d (4): W = 10, T = 1 + 3 + 4 = 8 along a, c, d.
std::vector<Action> diamond() { return {{"a", 1, {}}, {"b", 2, {"a"}}, {"c", 3, {"a"}}, {"d", 4, {"b", "c"}}}; }

TEST(Schedule, WorkAndCriticalPathOfADiamond) {
  const Span s = critical_path(diamond());
  EXPECT_DOUBLE_EQ(s.work, 10.0);
  EXPECT_DOUBLE_EQ(s.critical_path, 8.0);
  EXPECT_EQ(s.chain, (std::vector<std::string>{"a", "c", "d"}));
}

TEST(Schedule, ListScheduleBetweenItsBounds) {
  const auto d = diamond();
  EXPECT_DOUBLE_EQ(list_schedule(d, 1), 10.0);  // one worker: all the work
  EXPECT_DOUBLE_EQ(list_schedule(d, 2), 8.0);   // b beside c: the critical path
  EXPECT_DOUBLE_EQ(list_schedule(d, 64), 8.0);
  // Eight independent unit actions on 3 workers: ceil(8/3) = 3.
  std::vector<Action> flat;
  for (int k = 0; k < 8; ++k) flat.push_back({"x" + std::to_string(k), 1, {}});
  EXPECT_DOUBLE_EQ(list_schedule(flat, 3), 3.0);
  // Longest remaining chain first: the long chain starts at once.
  const std::vector<Action> two = {{"s1", 1, {}}, {"s2", 1, {}}, {"long", 5, {}}, {"tail", 5, {"long"}}};
  EXPECT_DOUBLE_EQ(list_schedule(two, 2), 10.0);
}

TEST(Schedule, UnknownUpstreamAndCyclesAreErrors) {
  EXPECT_THROW(critical_path({{"a", 1, {"ghost"}}}), StageError);
  EXPECT_THROW(critical_path({{"a", 1, {"b"}}, {"b", 1, {"a"}}}), StageError);
  EXPECT_THROW(list_schedule(diamond(), 0), StageError);
}

}  // namespace
}  // namespace potts::provenance
