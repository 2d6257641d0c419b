// Audits a results/ directory against its MANIFEST.json and the provenance
// chains (lib/provenance/results.h), and with --stale against the tree
// (lib/provenance/stale.h): prints every problem, naming the file, and
// exits 1 if there is any.
//
//   audit [DIR] [--stale FINGERPRINTS.json [--root DIR] [--require-code]]
// Without DIR: results/ of the source tree when run by `bazel run`
// (BUILD_WORKSPACE_DIRECTORY), else "results" (the runfiles of //paper:audit).
// --root: where the files FINGERPRINTS.json names are (default ".", the
// runfiles root of //paper:stale).
#include <cstdlib>
#include <iostream>

#include "lib/provenance/results.h"
#include "lib/provenance/stale.h"
#include "paper/cli.h"

int main(int argc, char** argv) {
  std::string dir, fingerprints, root = ".";
  bool require_code = false;
  CLI::App app{
      "Audits a results tree against its MANIFEST.json and its provenance chains; with --stale, also "
      "against the source tree. Prints every problem, naming the file; exits 1 if there is any.",
      "audit"};
  app.add_option("DIR", dir, "the results tree (default: results/ of the workspace under bazel run, else results)");
  app.add_option("--stale", fingerprints, "the stage fingerprints (//paper:paper_fingerprints) to check against");
  app.add_option("--root", root, "where the files the fingerprints name are")->capture_default_str();
  app.add_flag("--require-code", require_code, "a stage without a code fingerprint is stale, not a note");
  if (const int rc = potts::parse_arguments(app, argc, argv); rc >= 0) return rc;
  if (dir.empty()) {
    dir = potts::results_dir();
  }
  try {
    auto problems = potts::provenance::audit_results(dir);
    std::size_t stale = 0;
    if (!fingerprints.empty()) {
      auto r =
          potts::provenance::stale_results(dir, potts::provenance::read_fingerprints(fingerprints), root, require_code);
      for (const auto& n : r.notes) std::cout << "audit: note: " << n << "\n";
      stale = r.stale.size();
      problems.insert(problems.end(), r.stale.begin(), r.stale.end());
    }
    for (const auto& p : problems) std::cerr << "audit: " << p << "\n";
    if (!problems.empty()) {
      std::cerr << "audit: FAILED, " << problems.size() << " problem(s) in " << dir << " (" << stale
                << " stale); rerun `tools/bazel run //paper:all`\n";
      return 1;
    }
    std::cout << "audit: " << dir << " matches MANIFEST.json; every provenance chain is complete"
              << (fingerprints.empty() ? "" : "; nothing is stale against the tree") << "\n";
  } catch (const std::exception& e) {
    std::cerr << "audit: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
