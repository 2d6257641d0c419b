#include "lib/provenance/schedule.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <queue>
#include <set>

#include <nlohmann/json.hpp>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/provenance/graph.h"

namespace fs = std::filesystem;

namespace potts::provenance {

std::vector<Action> actions_from_records(const std::string& dir) {
  std::map<std::string, nlohmann::json> records;  // "provenance/<file>" -> record
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    const nlohmann::json r = read_json(e.path().string());
    if (!r.contains("target") || !r.contains("wall_seconds"))
      throw StageError(e.path().string() + ": expected a provenance record with 'target' and 'wall_seconds'");
    records["provenance/" + e.path().filename().string()] = r;
  }
  // Upstream: the stages that made the inputs, linked by hash (graph.h).
  const RecordGraph graph(records);
  std::vector<Action> out;
  for (const auto& [rel, r] : records) {
    Action a;
    a.target = r["target"].get<std::string>();
    a.seconds = r["wall_seconds"].get<double>();
    std::set<std::string> ups;
    for (const auto& l : graph.links(rel)) {
      if (l.target.empty()) continue;
      if (l.upstream.empty())
        throw StageError(dir + "/" + rel.substr(11) + ": input " + l.key + " comes from " + l.target +
                         ", which has no record here");
      ups.insert(l.target);
    }
    a.upstream.assign(ups.begin(), ups.end());
    out.push_back(a);
  }
  return out;
}

namespace {

// The actions as a graph: each one's upstream and downstream actions by
// index, in a topological order (Kahn); unknown targets and cycles are errors.
struct Graph {
  std::vector<std::vector<std::size_t>> up, down;
  std::vector<std::size_t> order;
};

Graph graph_of(const std::vector<Action>& actions) {
  std::map<std::string, std::size_t> index;
  for (std::size_t k = 0; k < actions.size(); ++k) index[actions[k].target] = k;
  Graph g;
  g.up.resize(actions.size());
  g.down.resize(actions.size());
  for (std::size_t k = 0; k < actions.size(); ++k)
    for (const auto& u : actions[k].upstream) {
      const auto it = index.find(u);
      if (it == index.end())
        throw StageError("schedule: " + actions[k].target + " reads from " + u + ", which has no record");
      g.up[k].push_back(it->second);
      g.down[it->second].push_back(k);
    }
  std::vector<std::size_t> missing(actions.size());
  for (std::size_t k = 0; k < actions.size(); ++k)
    if ((missing[k] = g.up[k].size()) == 0) g.order.push_back(k);
  for (std::size_t i = 0; i < g.order.size(); ++i)
    for (std::size_t d : g.down[g.order[i]])
      if (--missing[d] == 0) g.order.push_back(d);
  if (g.order.size() != actions.size()) throw StageError("schedule: the records' upstream links form a cycle");
  return g;
}

}  // namespace

Span critical_path(const std::vector<Action>& actions) {
  const Graph g = graph_of(actions);
  std::vector<double> finish(actions.size(), 0.0);
  std::vector<long> via(actions.size(), -1);
  Span s;
  long last = -1;
  for (std::size_t k : g.order) {
    double start = 0.0;
    for (std::size_t i : g.up[k])
      if (finish[i] > start) {
        start = finish[i];
        via[k] = long(i);
      }
    finish[k] = start + actions[k].seconds;
    if (last < 0 || finish[k] > finish[std::size_t(last)]) last = long(k);
  }
  if (last >= 0) s.critical_path = finish[std::size_t(last)];
  for (const Action& a : actions) s.work += a.seconds;  // in the given order, as a reader would sum them
  for (long k = last; k >= 0; k = via[std::size_t(k)]) s.chain.push_back(actions[std::size_t(k)].target);
  std::reverse(s.chain.begin(), s.chain.end());
  return s;
}

double list_schedule(const std::vector<Action>& actions, int workers) {
  if (workers < 1) throw StageError("schedule: the number of workers must be positive");
  const Graph g = graph_of(actions);
  const std::size_t n = actions.size();
  // Priority: the longest chain from an action to the end (its own time included).
  std::vector<double> tail(n, 0.0);
  for (auto it = g.order.rbegin(); it != g.order.rend(); ++it) {
    double longest = 0.0;
    for (std::size_t d : g.down[*it]) longest = std::max(longest, tail[d]);
    tail[*it] = actions[*it].seconds + longest;
  }
  std::vector<std::size_t> missing(n);
  for (std::size_t k = 0; k < n; ++k) missing[k] = g.up[k].size();
  auto lower = [&](std::size_t a, std::size_t b) { return tail[a] < tail[b] || (tail[a] == tail[b] && a > b); };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(lower)> ready(lower);
  for (std::size_t k = 0; k < n; ++k)
    if (missing[k] == 0) ready.push(k);
  // Running actions by finishing time (then index, for a fixed order).
  using Event = std::pair<double, std::size_t>;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> running;
  double now = 0.0;
  int free = workers;
  std::size_t done = 0;
  while (done < n) {
    while (free > 0 && !ready.empty()) {
      const std::size_t k = ready.top();
      ready.pop();
      running.push({now + actions[k].seconds, k});
      --free;
    }
    const auto [t, k] = running.top();
    running.pop();
    now = t;
    ++free;
    ++done;
    for (std::size_t d : g.down[k])
      if (--missing[d] == 0) ready.push(d);
  }
  return now;
}

}  // namespace potts::provenance
