// //paper:compact: a results tree collected when every provenance record
// embedded its upstream records, stored as the collector now stores it:
// each record once, compact, linked by hash (lib/provenance/graph.h), and
// MANIFEST.json without chains. Nothing is written unless every embedded copy
// is the record beside it, byte for byte.
//
//   tools/bazel run //paper:compact -- results
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "lib/provenance/results.h"
#include "paper/cli.h"

int main(int argc, char** argv) {
  std::string dir;
  CLI::App app{
      "Stores the provenance records of a results tree compact (no copies of upstream records) and "
      "rewrites its MANIFEST.json; checks first that every copy it drops is the record beside it.",
      "compact"};
  app.add_option("DIR", dir, "a results tree (relative paths are taken from the workspace under bazel run)")
      ->required();
  if (const int rc = potts::parse_arguments(app, argc, argv); rc >= 0) return rc;
  if (const std::string ws = potts::workspace_dir(); !dir.empty() && dir[0] != '/' && !ws.empty()) dir = ws + "/" + dir;
  try {
    const int n = potts::provenance::compact_results(dir);
    std::printf("compact: %d records of %s stored compact; MANIFEST.json rewritten\n", n, dir.c_str());
    std::printf("check with: tools/bazel test //paper:audit (or tools/bazel run //paper:audit_tree)\n");
  } catch (const std::exception& e) {
    std::cerr << "compact: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
