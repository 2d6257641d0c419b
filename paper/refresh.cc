// //paper:refresh: brings results/ up to date after a change that keeps the
// science (a faster kernel, a threaded loop, a runtime message), without the
// whole DAG (lib/provenance/refresh.h). Every stage whose action changed,
// and every stage reading what such a stage rewrote, runs as this tree
// defines it, on inputs from results/ by hash; science stages must write
// their recorded bytes, presentation stages (figures, the paper) are
// redrawn; results/ is then collected anew, or left as it was.
//
//   tools/bazel run //paper:refresh -- --plan     what would run, and its recorded cost
//   tools/bazel run //paper:refresh               run it, then collect
//
//   tools/bazel run //paper:refresh -- --regenerate
//                                       the same, keeping new bytes: a change that
//                                       alters results reruns only what lies below it
//
// Exit status 0: results/ is current or was refreshed; 1: a stage differs
// (without --regenerate) or failed, and nothing was written; 2: usage.
#include <cstdlib>
#include <iostream>

#include "lib/provenance/refresh.h"
#include "paper/cli.h"
#include "paper/rebuilder_cli.h"

int main(int argc, char** argv) {
  using namespace potts::provenance;
  VerifyOptions o;
  o.own_compile_cache = false;
  std::string fingerprints = "//paper:paper_fingerprints";
  CLI::App app{
      "Reruns the stages of a results tree whose action this tree changed, and those reading what they rewrote; "
      "science stages must reproduce their recorded bytes. Then collects the tree anew, or writes nothing.",
      "refresh"};
  potts::add_rebuilder_options(app, o, "potts_attention_refresh", "", "");
  app.add_option("--fingerprints", fingerprints, "the stage fingerprints of the tree's scale (results/: paper)")
      ->capture_default_str();
  app.add_option("--disk-cache", o.disk_cache, "the compiles' disk cache (default: the workspace's .bazelrc one)");
  app.add_flag("--plan", o.plan_only,
               "build the tools and list what would run: the stages whose action changed, the stages reading their "
               "records, and the upstream stages rerun to supply inputs that results/ does not hold, each with its "
               "record's wall time; run nothing");
  app.add_flag("--regenerate", o.regenerate,
               "keep a science stage's new bytes instead of refusing them (a change that alters results): every "
               "stage below it reruns on them, and its line says NEW; the rest of results/ keeps its bytes");
  if (const int rc = potts::parse_arguments(app, argc, argv); rc >= 0) return rc;
  potts::finish_rebuilder_options(o, "potts_attention_refresh");
  try {
    return run_refresh(o, fingerprints);
  } catch (const std::exception& e) {
    std::cerr << "refresh: error: " << e.what() << "\n";
    return 1;
  }
}
