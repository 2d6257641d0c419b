// Audits a results/ directory against its MANIFEST.json and the provenance
// chains (lib/provenance/results.h): prints every problem, naming the file,
// and exits 1 if there is any.
//
//   audit [DIR]
// Without DIR: results/ of the source tree when run by `bazel run`
// (BUILD_WORKSPACE_DIRECTORY), else "results" (the runfiles of //paper:audit).
#include <cstdlib>
#include <iostream>

#include "lib/provenance/results.h"

int main(int argc, char** argv) {
  std::string dir = "results";
  if (argc > 1) {
    dir = argv[1];
  } else if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    dir = std::string(ws) + "/results";
  }
  try {
    auto problems = potts::provenance::audit_results(dir);
    for (const auto& p : problems) std::cerr << "audit: " << p << "\n";
    if (!problems.empty()) {
      std::cerr << "audit: FAILED, " << problems.size() << " problem(s) in " << dir << "\n";
      return 1;
    }
    std::cout << "audit: " << dir << " matches MANIFEST.json; every provenance chain is complete\n";
  } catch (const std::exception& e) {
    std::cerr << "audit: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
