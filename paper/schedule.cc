// //paper:schedule: the paper DAG's total work W, critical path T and
// predicted wall time on N workers, from the stage times in
// results/provenance/ (lib/provenance/schedule.h).
//
//   tools/bazel run //paper:schedule [-- RESULTS_DIR]
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>

#include "lib/provenance/schedule.h"
#include "paper/cli.h"

int main(int argc, char** argv) {
  std::string dir;
  if (argc > 1 && std::string(argv[1]) == "--help") {
    std::cout << "usage: tools/bazel run //paper:schedule [-- RESULTS_DIR]\n\n"
                 "Work W, critical path T and wall time on N workers of the DAG that made RESULTS_DIR\n"
                 "(default: the workspace's results/), from its provenance records' stage times.\n";
    return 0;
  }
  if (argc > 1) dir = argv[1];
  if (dir.empty()) dir = potts::results_dir();
  try {
    using namespace potts::provenance;
    const auto actions = actions_from_records(dir + "/provenance");
    const Span s = critical_path(actions);
    std::map<std::string, double> seconds;
    for (const auto& a : actions) seconds[a.target] = a.seconds;
    std::printf("%zu stage actions recorded in %s/provenance\n", actions.size(), dir.c_str());
    std::printf("work W = %.0f s (one core each), critical path T = %.0f s:\n", s.work, s.critical_path);
    for (const auto& t : s.chain) std::printf("  %8.1f s  %s\n", seconds[t], t.c_str());
    std::printf("\n%8s %14s %14s %14s\n", "workers", "max(W/N, T)", "list schedule", "W/N + T");
    for (int n : {1, 2, 8, 32, 128}) {
      const double lower = std::max(s.work / n, s.critical_path);
      std::printf("%8d %12.0f s %12.0f s %12.0f s\n", n, lower, list_schedule(actions, n),
                  s.work / n + s.critical_path);
    }
    std::printf(
        "\n(compiles, links and cache lookups are not counted; the times are those recorded when results/\n"
        "was made, some beside other work)\n");
  } catch (const std::exception& e) {
    std::cerr << "schedule: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
