// //paper:all (and the test collections): copies what an index lists from
// the runfiles into a new tree with its MANIFEST.json and swaps it in for
// results/ whole (lib/provenance/results.h), and prints the wall time of
// every stage from its provenance record. Interrupted at any point, results/
// is wholly old or wholly new; errors name the file and the reason.
//
//   collect INDEX.json [--dest DIR]
// Without --dest the destination is results/ in the source tree, found from
// BUILD_WORKSPACE_DIRECTORY, which `bazel run` sets.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "lib/core/io.h"
#include "lib/provenance/results.h"
#include "paper/cli.h"

int main(int argc, char** argv) {
  using namespace potts;
  std::string index_path, dest;
  CLI::App app{
      "Copies what INDEX.json lists into a new results tree with its MANIFEST.json and swaps it in whole; "
      "prints every stage's wall time from its provenance record.",
      "collect"};
  app.add_option("INDEX.json", index_path, "the index of a scale (//paper:<scale>_index)")->required();
  app.add_option("--dest", dest, "the destination (default: results/ of the workspace under bazel run)");
  if (const int rc = potts::parse_arguments(app, argc, argv); rc >= 0) return rc;
  if (dest.empty()) {
    dest = potts::results_dir(true);
    if (dest.empty()) {
      std::cerr << "collect: no --dest and no BUILD_WORKSPACE_DIRECTORY: run it as `tools/bazel run //paper:all`\n";
      return 2;
    }
  }
  try {
    // The index also lists each stage's config, tool and source files: the
    // manifest records the code fingerprints from them.
    auto manifest = provenance::collect_results(provenance::read_index(index_path), ".", dest,
                                                provenance::read_fingerprints(index_path));
    std::printf("%-48s %12s\n", "stage (provenance record)", "wall s");
    double total = 0;
    for (const auto& [rel, m] : manifest["files"].items()) {
      if (rel.rfind("provenance/", 0) != 0) continue;
      auto rec = nlohmann::json::parse(read_text(dest + "/" + rel));
      const double w = rec.value("wall_seconds", 0.0);
      total += w;
      std::printf("%-48s %12.2f\n", rec.value("target", rel).c_str(), w);
    }
    std::printf("%-48s %12.2f\n", "sum over stages (one core each)", total);
    std::printf("collect: %zu files and MANIFEST.json written to %s\n", manifest["files"].size(), dest.c_str());
    std::printf("check with: tools/bazel test //paper:audit (or tools/bazel run //paper:audit_tree)\n");
  } catch (const std::exception& e) {
    std::cerr << "collect: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
