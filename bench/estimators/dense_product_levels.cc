// Each instruction-set level's dense_product kernel (dense_product.h) on the
// attention fit's real shapes, beside that level's peak on this machine.
//
// For every level this CPU runs (baseline, AVX2, AVX-512) and every product
// of one step of the observation's main fit (Ras: L = 159, P = 12561 pairs,
// H = 256 heads of d = 32, eq. P1's S = 210 and K = 190 block parts), it
// reports multiply-adds per ns: m n k / the best of --rounds timed calls,
// levels interleaved within a round. The peak is measured, not looked up:
// a loop of independent fused multiply-adds (FMA units x lanes x clock) and
// one of separate multiplications and additions (what the kernels run, since
// FMA would change their bits), each at the level's vector width. The clock
// is stated as the FMA peak over (2 FMA units x lanes). Pinned to --core.
//   tools/bazel run -c opt //bench/estimators:dense_product_levels -- [--rounds R] [--core C] [--json FILE]
#include <immintrin.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/isa.h"
#include "lib/core/rng.h"
#include "lib/linalg/dense_product.h"

namespace {

using potts::IsaLevel;
using Clock = std::chrono::steady_clock;

struct Shape {
  const char* name;
  bool ta, tb, single;
  arma::uword m, n, k;
  int calls;  // per step
};

// One step of the main fit (attention_potts.cc): eq. P1's two products and
// their four gradients in float, and per head the maps' product and its two
// gradients in double.
constexpr arma::uword L = 159, P = L * (L - 1) / 2, H = 256, D = 32, S = 210, K = 190;
const Shape kShapes[] = {
    {"couplings Wsym = Sop Bplus^T", false, true, true, S, P, H, 1},
    {"couplings Want = Kop Bminus^T", false, true, true, K, P, H, 1},
    {"gradient dSop = Gsym Bplus", false, false, true, S, H, P, 1},
    {"gradient dKop = Gant Bminus", false, false, true, K, H, P, 1},
    {"gradient dBplus = Gsym^T Sop", true, false, true, P, H, S, 1},
    {"gradient dBminus = Gant^T Kop", true, false, true, P, H, K, 1},
    {"maps St = K^T Q (per head)", true, false, false, L, L, D, int(H)},
    {"maps dQ = K dSt (per head)", false, false, false, D, L, L, int(H)},
    {"maps dK = Q dSt^T (per head)", false, true, false, D, L, L, int(H)},
};

template <class T>
struct Operands {
  arma::Mat<T> a, b, c;
  Operands(const Shape& s) {
    potts::Rng rng(7, 1);
    a.set_size(s.ta ? s.k : s.m, s.ta ? s.m : s.k);
    b.set_size(s.tb ? s.n : s.k, s.tb ? s.k : s.n);
    c.set_size(s.m, s.n);
    for (auto& v : a) v = T(rng.uniform() - 0.5);
    for (auto& v : b) v = T(rng.uniform() - 0.5);
  }
  double run(IsaLevel level, const Shape& s) {
    const auto t0 = Clock::now();
    potts::dense_product_at(level, s.ta, s.tb, s.m, s.n, s.k, a.memptr(), a.n_rows, b.memptr(), b.n_rows, c.memptr(),
                            s.m);
    return std::chrono::duration<double>(Clock::now() - t0).count();
  }
};

// Peak loops: 12 independent accumulators (enough to cover a 4-cycle latency
// at two instructions a cycle), 2^24 iterations of 12 operations each; the
// empty asm after each operation keeps the compiler from merging them.
constexpr long kPeakIters = 1L << 24;

// One peak loop: `name` runs 12 accumulators through `step` (an expression
// in x, y and acc[i]) and returns float multiply-adds per ns.
#define PEAK_LOOP(name, attr, V, set1, add, step, LANES)                           \
  attr __attribute__((noinline)) double name() {                                   \
    V acc[12], x = set1(1.0000001f), y = set1(0.9999999f);                         \
    _Pragma("GCC unroll 12") for (int i = 0; i < 12; ++i) acc[i] = set1(float(i)); \
    const auto t0 = Clock::now();                                                  \
    for (long it = 0; it < kPeakIters; ++it) {                                     \
      _Pragma("GCC unroll 12") for (int i = 0; i < 12; ++i) {                      \
        acc[i] = step;                                                             \
        __asm__ volatile("" : "+v"(x));                                            \
      }                                                                            \
    }                                                                              \
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();     \
    float sink[LANES];                                                             \
    V s = acc[0];                                                                  \
    for (int i = 1; i < 12; ++i) s = add(s, acc[i]);                               \
    std::memcpy(sink, &s, sizeof(s));                                              \
    return sink[0] == 42.0f ? 0.0 : double(kPeakIters) * 12 * LANES / t / 1e9;     \
  }
// A level's two loops: fused multiply-adds, and multiplications then additions.
#define PEAK_LOOPS(suffix, attr, V, zero, set1, fma, mul, add, LANES)        \
  PEAK_LOOP(fma_peak_##suffix, attr, V, set1, add, fma(x, y, acc[i]), LANES) \
  PEAK_LOOP(muladd_peak_##suffix, attr, V, set1, add, add(acc[i], mul(x, y)), LANES)

// The baseline has no FMA instruction: its "FMA peak" is FMA3 at 128 bits,
// the rate an FMA-capable core would reach at that width.
PEAK_LOOPS(baseline, __attribute__((target("fma"))), __m128, _mm_setzero_ps, _mm_set1_ps, _mm_fmadd_ps, _mm_mul_ps,
           _mm_add_ps, 4)
PEAK_LOOPS(avx2, __attribute__((target("avx2,fma"))), __m256, _mm256_setzero_ps, _mm256_set1_ps, _mm256_fmadd_ps,
           _mm256_mul_ps, _mm256_add_ps, 8)
PEAK_LOOPS(avx512, __attribute__((target("avx512f"))), __m512, _mm512_setzero_ps, _mm512_set1_ps, _mm512_fmadd_ps,
           _mm512_mul_ps, _mm512_add_ps, 16)

struct Peak {
  double fma, muladd;  // float multiply-adds per ns
};

Peak measure_peak(IsaLevel level) {
  Peak p{};
  for (int r = 0; r < 3; ++r) {
    double f, m;
    if (level == IsaLevel::kAvx512) {
      f = fma_peak_avx512();
      m = muladd_peak_avx512();
    } else if (level == IsaLevel::kAvx2) {
      f = fma_peak_avx2();
      m = muladd_peak_avx2();
    } else {
      f = __builtin_cpu_supports("fma") ? fma_peak_baseline() : 0.0;
      m = muladd_peak_baseline();
    }
    p.fma = std::max(p.fma, f);
    p.muladd = std::max(p.muladd, m);
  }
  return p;
}

int lanes(IsaLevel level, bool single) {
  const int bytes = level == IsaLevel::kAvx512 ? 64 : level == IsaLevel::kAvx2 ? 32 : 16;
  return bytes / (single ? 4 : 8);
}

int usage(const char* why) {
  std::fprintf(stderr,
               "%s%sdense_product_levels [--rounds R] [--core C] [--json FILE]\n"
               "  Multiply-adds per ns of each level's dense_product kernel on the attention fit's shapes,\n"
               "  beside the level's measured FMA and multiply-then-add peaks; pinned to core C (default 0).\n",
               why, *why ? "\n" : "");
  return *why ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5, core = 0;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") return usage("");
    if (i + 1 >= argc) return usage(("dense_product_levels: " + a + " needs a value").c_str());
    const std::string v = argv[++i];
    try {
      if (a == "--rounds")
        rounds = std::stoi(v);
      else if (a == "--core")
        core = std::stoi(v);
      else if (a == "--json")
        json_path = v;
      else
        return usage(("dense_product_levels: unknown argument '" + a + "'").c_str());
    } catch (const std::exception&) {
      return usage(("dense_product_levels: " + a + ": expected a whole number, got '" + v + "'").c_str());
    }
  }
  if (rounds < 1) return usage("dense_product_levels: --rounds: expected at least 1");
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) return usage("dense_product_levels: --core: cannot pin there");

  std::vector<IsaLevel> levels;
  for (int l = 0; l <= int(potts::isa_level()); ++l) levels.push_back(IsaLevel(l));
  nlohmann::json out;
  out["core"] = core;
  out["rounds"] = rounds;
  std::vector<Peak> peaks;
  for (IsaLevel l : levels) {
    peaks.push_back(measure_peak(l));
    const Peak& p = peaks.back();
    std::fprintf(stderr,
                 "peak %-8s float: FMA %.1f, multiply then add %.1f multiply-adds/ns (clock %.2f GHz at 2 FMA units)\n",
                 potts::isa_name(l), p.fma, p.muladd, p.fma / (2.0 * lanes(l, true)));
    out["peaks"][potts::isa_name(l)] = {{"fma_float_per_ns", p.fma},
                                        {"muladd_float_per_ns", p.muladd},
                                        {"clock_ghz_at_2_fma_units", p.fma / (2.0 * lanes(l, true))}};
  }
  std::printf("| product | m x n x k | level | multiply-adds/ns | of FMA peak | of multiply-then-add peak |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const Shape& s : kShapes) {
    std::vector<double> best(levels.size(), 1e30);
    Operands<float> f(s);
    Operands<double> d(s);
    for (std::size_t li = 0; li < levels.size(); ++li) s.single ? f.run(levels[li], s) : d.run(levels[li], s);  // warm
    for (int r = 0; r < rounds; ++r)
      for (std::size_t li = 0; li < levels.size(); ++li)
        best[li] = std::min(best[li], s.single ? f.run(levels[li], s) : d.run(levels[li], s));
    for (std::size_t li = 0; li < levels.size(); ++li) {
      const double rate = double(s.m) * s.n * s.k / best[li] / 1e9;
      // The peaks are float; a double lane does half the work per instruction.
      const double scale = s.single ? 1.0 : 0.5;
      const double of_fma = rate / (peaks[li].fma * scale), of_ma = rate / (peaks[li].muladd * scale);
      std::printf("| %s (%s) | %llu x %llu x %llu | %s | %.2f | %.0f %% | %.0f %% |\n", s.name,
                  s.single ? "float" : "double", (unsigned long long)s.m, (unsigned long long)s.n,
                  (unsigned long long)s.k, potts::isa_name(levels[li]), rate, 100 * of_fma, 100 * of_ma);
      out["products"].push_back({{"product", s.name},
                                 {"type", s.single ? "float" : "double"},
                                 {"m", s.m},
                                 {"n", s.n},
                                 {"k", s.k},
                                 {"calls_per_step", s.calls},
                                 {"level", potts::isa_name(levels[li])},
                                 {"seconds", best[li]},
                                 {"muladds_per_ns", rate},
                                 {"of_fma_peak", of_fma},
                                 {"of_muladd_peak", of_ma}});
    }
  }
  if (!json_path.empty()) {
    std::ofstream o(json_path);
    o << out.dump(2) << "\n";
    if (!o) return usage(("dense_product_levels: " + json_path + ": cannot write").c_str());
  }
  return 0;
}
