// //paper:schedule on the committed results/: every upstream link of every
// record names a recorded action, W is the sum of the records' times, the
// critical path ends at the paper and starts at a stage with no inputs,
// and the list schedule respects its bounds at every worker count.
#include <gtest/gtest.h>

#include <algorithm>

#include "lib/provenance/schedule.h"

namespace potts::provenance {
namespace {

TEST(ScheduleRecords, TheCommittedDagHasWorkSpanAndSchedulesWithinBounds) {
  const auto actions = actions_from_records("results/provenance");
  ASSERT_GT(actions.size(), 200u);
  double sum = 0.0;
  for (const auto& a : actions) sum += a.seconds;
  const Span s = critical_path(actions);  // throws on a missing link or a cycle
  EXPECT_DOUBLE_EQ(s.work, sum);
  EXPECT_GT(s.critical_path, 0.0);
  EXPECT_LE(s.critical_path, s.work);
  ASSERT_FALSE(s.chain.empty());
  EXPECT_EQ(s.chain.back(), "//paper:paper_md");
  const auto first =
      std::find_if(actions.begin(), actions.end(), [&](const Action& a) { return a.target == s.chain.front(); });
  ASSERT_NE(first, actions.end());
  EXPECT_TRUE(first->upstream.empty()) << s.chain.front();
  for (int n : {1, 2, 8, 32}) {
    const double t = list_schedule(actions, n);
    EXPECT_GE(t, std::max(s.work / n, s.critical_path) - 1e-6) << n;
    EXPECT_LE(t, s.work / n + s.critical_path + 1e-6) << n;
  }
  EXPECT_NEAR(list_schedule(actions, 1), s.work, 1e-6 * s.work);
}

}  // namespace
}  // namespace potts::provenance
