// How long the paper's DAG takes on N workers, from the stage times its
// provenance records hold: the total work W (the sum of every action's wall
// time), the critical path T (the longest chain of dependent actions), and
// a greedy list schedule on N identical workers (ready actions, longest
// remaining chain first), which lies between max(W/N, T) and W/N + T
// (Graham's bound).
//
// Stage actions only: compiling and linking, served from a cache once, are
// not counted. The recorded times are those of the runs that made results/
// (some ran beside other work), so they are estimates.
//
// Tested by //lib/provenance:schedule_test.
#pragma once
#include <string>
#include <vector>

namespace potts::provenance {

struct Action {
  std::string target;
  double seconds = 0.0;
  std::vector<std::string> upstream;  // targets it reads from
};

// One action per provenance record in `dir` (results/provenance/): its
// target, wall_seconds and the targets of its upstream records.
std::vector<Action> actions_from_records(const std::string& dir);

struct Span {
  double work = 0.0;               // W
  double critical_path = 0.0;      // T
  std::vector<std::string> chain;  // the critical path's actions, first to last
};
// A StageError if an upstream target is not an action, or the graph has a cycle.
Span critical_path(const std::vector<Action>& actions);

// Wall time of a greedy list schedule on `workers` identical workers.
double list_schedule(const std::vector<Action>& actions, int workers);

}  // namespace potts::provenance
