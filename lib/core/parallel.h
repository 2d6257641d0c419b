// Threads inside one stage action, without changing a bit of its results.
//
// parallel_ranges(n, body) cuts [0, n) into parallel_threads() contiguous
// ranges and runs body(begin, end) on each, the calling thread taking the
// first. Callers give each index its own outputs, computed by the same
// operations whichever thread runs it, so the results are the same bits for
// any thread count (lib/nn's kernels; their tests compare 1, 2, 3 and 16
// threads by memcmp). The workers persist between calls. A call made from
// inside a range (nested) runs inline, on the thread that made it.
#pragma once
#include <cstddef>
#include <functional>

namespace potts {

// The number of threads of parallel_ranges (default 1: everything inline;
// at most 256).
// Set once per process, before the work (the stage runtime does it from
// --threads); not while a parallel_ranges call runs.
void set_parallel_threads(int n);
int parallel_threads();

// Runs body on min(parallel_threads(), n / min_per_range) ranges (at least
// one). An exception thrown by a range is rethrown here, after every range
// has finished (the first in range order).
void parallel_ranges(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body,
                     std::size_t min_per_range = 1);

}  // namespace potts
