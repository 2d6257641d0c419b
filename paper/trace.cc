// //paper:trace: the chain of one file of results/ back to the first stage
// (lib/provenance/trace.h), and whether it is current against the tree.
//
//   tools/bazel run //paper:trace -- results/figures/fig2a_h70.png
#include <cstdlib>
#include <iostream>

#include "lib/provenance/results.h"
#include "lib/provenance/stale.h"
#include "lib/provenance/trace.h"
#include "paper/cli.h"

int main(int argc, char** argv) {
  std::string file, dir, fingerprints, root = ".";
  CLI::App app{
      "Prints the chain of FILE, a file of results/ (e.g. results/figures/fig2a_h70.png): its SHA-256, the "
      "stage that made it, its configuration and seed, every input with its hash, recursively back to the "
      "first stage, the code version, and whether it is current or stale (and why).",
      "tools/bazel run //paper:trace --"};
  app.add_option("FILE", file, "a file of results/")->required();
  app.add_option("--results", dir, "the results tree (default: results/ of the workspace)");
  app.add_option("--fingerprints", fingerprints, "the stage fingerprints to judge staleness by");
  app.add_option("--root", root, "where the files the fingerprints name are")->capture_default_str();
  if (const int rc = potts::parse_arguments(app, argc, argv); rc >= 0) return rc;
  if (dir.empty()) dir = potts::results_dir();
  // Relative paths are the user's, from where they ran `bazel run`.
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (cwd && file[0] != '/') file = std::string(cwd) + "/" + file;
  try {
    std::vector<std::string> stale;
    if (!fingerprints.empty())
      stale =
          potts::provenance::stale_results(dir, potts::provenance::read_fingerprints(fingerprints), root, true).stale;
    // The audit's own problems (a changed file anywhere) count too.
    for (const auto& p : potts::provenance::audit_results(dir)) stale.push_back(p);
    std::cout << potts::provenance::trace_result(dir, file, &stale);
  } catch (const std::exception& e) {
    std::cerr << "trace: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
