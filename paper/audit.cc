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

int main(int argc, char** argv) {
  std::string dir, fingerprints, root = ".";
  bool require_code = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--stale" && i + 1 < argc) {
      fingerprints = argv[++i];
    } else if (a == "--root" && i + 1 < argc) {
      root = argv[++i];
    } else if (a == "--require-code") {
      require_code = true;
    } else if (dir.empty() && a.rfind("--", 0) != 0) {
      dir = a;
    } else {
      std::cerr << "usage: audit [DIR] [--stale FINGERPRINTS.json [--root DIR] [--require-code]]\n";
      return 2;
    }
  }
  if (dir.empty()) {
    const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    dir = ws ? std::string(ws) + "/results" : "results";
  }
  try {
    auto problems = potts::provenance::audit_results(dir);
    std::size_t stale = 0;
    if (!fingerprints.empty()) {
      auto r = potts::provenance::stale_results(dir, potts::provenance::read_fingerprints(fingerprints), root,
                                                require_code);
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
