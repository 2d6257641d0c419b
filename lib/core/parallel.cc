#include "lib/core/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace potts {
namespace {

thread_local bool t_inside_range = false;

// n - 1 workers; worker w runs range w + 1 of the current job. A training
// step makes dozens of calls of a fraction of a millisecond each, so waiting
// spins for a while (about 50 microseconds) before it sleeps on a condition
// variable: a sleeping thread takes tens of microseconds to wake.
class Pool {
 public:
  explicit Pool(int threads) {
    for (int w = 1; w < threads; ++w) workers_.emplace_back([this, w] { loop(w); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int threads() const { return int(workers_.size()) + 1; }

  void run(std::size_t n, std::size_t parts, const std::function<void(std::size_t, std::size_t)>& body) {
    std::lock_guard<std::mutex> serial(call_mu_);  // one job at a time
    std::vector<std::exception_ptr> errors(parts);
    job_ = {&body, n, parts, &errors};  // published by the release below
    pending_.store(parts - 1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++generation_;
      ticket_.store(generation_ << 16 | parts, std::memory_order_release);
    }
    wake_.notify_all();
    run_range(0);
    if (!spin([&] { return pending_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lock(mu_);
      done_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

 private:
  struct Job {
    const std::function<void(std::size_t, std::size_t)>* body = nullptr;
    std::size_t n = 0, parts = 0;
    std::vector<std::exception_ptr>* errors = nullptr;
  };

  // Polls ready() for about 50 microseconds; true as soon as it holds.
  template <class F>
  static bool spin(const F& ready) {
    for (int i = 0; i < 20000; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    return ready();
  }

  void run_range(std::size_t r) {
    const Job& j = job_;  // fixed while the job runs
    t_inside_range = true;
    try {
      (*j.body)(r * j.n / j.parts, (r + 1) * j.n / j.parts);
    } catch (...) {
      (*j.errors)[r] = std::current_exception();
    }
    t_inside_range = false;
  }

  void loop(int w) {
    std::uint64_t seen = 0;
    for (;;) {
      auto fresh = [&] { return ticket_.load(std::memory_order_acquire) != seen; };
      if (!spin(fresh)) {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return stop_ || fresh(); });
        if (stop_) return;
      }
      // The job's number and range count in one word: a worker left out of
      // this job must not read job_, which the next job may be rewriting.
      seen = ticket_.load(std::memory_order_acquire);
      if (std::size_t(w) >= (seen & 0xffff)) continue;  // this job has fewer ranges
      run_range(std::size_t(w));
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mu_);  // the caller may be between its check and its wait
        done_.notify_one();
      }
    }
  }

  std::vector<std::thread> workers_;
  std::mutex call_mu_, mu_;
  std::condition_variable wake_, done_;
  Job job_;
  std::atomic<std::size_t> pending_{0};
  std::uint64_t generation_ = 0;          // jobs started (under mu_)
  std::atomic<std::uint64_t> ticket_{0};  // generation_ << 16 | the job's range count
  bool stop_ = false;
};

std::mutex g_pool_mu;
std::unique_ptr<Pool> g_pool;  // null: one thread
int g_threads = 1;

}  // namespace

void set_parallel_threads(int n) {
  std::lock_guard<std::mutex> lock(g_pool_mu);
  n = std::min(std::max(1, n), 256);
  if (n == g_threads) return;
  g_pool.reset();
  if (n > 1) g_pool = std::make_unique<Pool>(n);
  g_threads = n;
}

int parallel_threads() {
  std::lock_guard<std::mutex> lock(g_pool_mu);
  return g_threads;
}

void parallel_ranges(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body,
                     std::size_t min_per_range) {
  Pool* pool = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_pool_mu);
    pool = g_pool.get();
  }
  const std::size_t parts =
      pool && !t_inside_range ? std::min<std::size_t>(pool->threads(), n / std::max<std::size_t>(1, min_per_range)) : 1;
  if (parts <= 1) {
    body(0, n);
    return;
  }
  pool->run(n, parts, body);
}

}  // namespace potts
