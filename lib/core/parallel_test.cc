// parallel_ranges: every index once, in contiguous ranges fixed by the thread
// count alone; nested calls inline; exceptions reach the caller.
#include "lib/core/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace potts {
namespace {

std::set<std::pair<std::size_t, std::size_t>> ranges_of(std::size_t n, std::size_t min_per_range = 1) {
  std::mutex mu;
  std::set<std::pair<std::size_t, std::size_t>> seen;
  parallel_ranges(
      n,
      [&](std::size_t b, std::size_t e) {
        std::lock_guard<std::mutex> lock(mu);
        seen.insert({b, e});
      },
      min_per_range);
  return seen;
}

class Parallel : public ::testing::Test {
 protected:
  void TearDown() override { set_parallel_threads(1); }
};

TEST_F(Parallel, EveryIndexOnceForAnyThreadCount) {
  for (int threads : {1, 2, 3, 7}) {
    set_parallel_threads(threads);
    EXPECT_EQ(threads, parallel_threads());
    for (std::size_t n : {0, 1, 2, 5, 100, 1001}) {
      std::vector<std::atomic<int>> hits(n);
      parallel_ranges(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) ++hits[i];
      });
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(1, hits[i].load()) << threads << " threads, n = " << n;
    }
  }
}

TEST_F(Parallel, RangesAreContiguousAndFixedByTheCount) {
  set_parallel_threads(3);
  const std::set<std::pair<std::size_t, std::size_t>> want{{0, 3}, {3, 6}, {6, 10}};
  for (int repeat = 0; repeat < 20; ++repeat) EXPECT_EQ(want, ranges_of(10));
  // fewer ranges than threads when a range would be shorter than asked
  EXPECT_EQ((std::set<std::pair<std::size_t, std::size_t>>{{0, 5}, {5, 10}}), ranges_of(10, 4));
  EXPECT_EQ((std::set<std::pair<std::size_t, std::size_t>>{{0, 10}}), ranges_of(10, 6));
  EXPECT_EQ((std::set<std::pair<std::size_t, std::size_t>>{{0, 2}}), ranges_of(2, 3));
}

TEST_F(Parallel, RangesRunOnSeveralThreads) {
  set_parallel_threads(2);
  std::mutex mu;
  std::set<std::thread::id> ids;
  parallel_ranges(2, [&](std::size_t, std::size_t) {
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(2u, ids.size());
  EXPECT_EQ(1u, ids.count(std::this_thread::get_id()));  // the caller takes a range
}

TEST_F(Parallel, NestedCallsRunInline) {
  set_parallel_threads(4);
  std::atomic<int> inner_ranges{0}, total{0};
  parallel_ranges(8, [&](std::size_t b, std::size_t e) {
    parallel_ranges(e - b, [&](std::size_t ib, std::size_t ie) {
      ++inner_ranges;
      total += int(ie - ib);
    });
  });
  EXPECT_EQ(4, inner_ranges.load());  // one inline range per outer range
  EXPECT_EQ(8, total.load());
}

TEST_F(Parallel, ExceptionsReachTheCallerAfterEveryRange) {
  set_parallel_threads(3);
  std::atomic<int> finished{0};
  try {
    parallel_ranges(3, [&](std::size_t b, std::size_t) {
      if (b >= 1) throw std::runtime_error("range " + std::to_string(b));
      ++finished;
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ("range 1", e.what());  // the first in range order
  }
  EXPECT_EQ(1, finished.load());
  // the pool still works afterwards
  EXPECT_EQ(3u, ranges_of(9).size());
}

}  // namespace
}  // namespace potts
