// //paper:refresh: brings results/ up to date after a change that keeps the
// science (a faster kernel, a threaded loop, a runtime message), without the
// whole DAG (lib/provenance/refresh.h). Every stage whose action changed,
// and every stage reading what such a stage rewrote, runs as this tree
// defines it, on inputs from results/ by hash; science stages must write
// their recorded bytes, presentation stages (figures, the paper) are
// redrawn; results/ is then collected anew, or left as it was.
//
//   tools/bazel run //paper:refresh -- --plan     what would run
//   tools/bazel run //paper:refresh               run it, then collect
//
// Exit status 0: results/ is current or was refreshed; 1: a stage differs
// or failed (nothing written: regenerate with //paper:all); 2: usage.
#include <cstdlib>
#include <iostream>

#include "lib/core/io.h"
#include "lib/provenance/refresh.h"
#include "paper/cli.h"

int main(int argc, char** argv) {
  using namespace potts::provenance;
  VerifyOptions o;
  o.own_compile_cache = false;
  std::string fingerprints = "//paper:paper_fingerprints";
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  o.workspace = ws ? ws : ".";
  CLI::App app{
      "Reruns the stages of a results tree whose action this tree changed, and those reading what they rewrote; "
      "science stages must reproduce their recorded bytes. Then collects the tree anew, or writes nothing.",
      "refresh"};
  app.add_option("--results", o.results, "the results tree (default: results/ of the workspace)");
  app.add_option("--workspace", o.workspace, "the source tree whose code and configurations run the stages")
      ->capture_default_str();
  app.add_option("--fingerprints", fingerprints, "the stage fingerprints of the tree's scale (results/: paper)")
      ->capture_default_str();
  app.add_option("--output-base", o.output_base,
                 "its own Bazel output base (default ~/.cache/potts_attention_refresh/<workspace hash>); an "
                 "existing directory without the rebuilder's stamp is refused, never removed");
  app.add_option("--disk-cache", o.disk_cache, "the compiles' disk cache (default: the workspace's .bazelrc one)");
  app.add_option("--scratch", o.scratch,
                 "where stages run: a new or empty directory outside the workspace and results (default a new "
                 "directory under TMPDIR)");
  app.add_flag("--keep", o.keep, "keep the scratch directory");
  app.add_flag("--plan", o.plan_only, "build the tools and list the stages whose action changed; run nothing");
  if (const int rc = potts::parse_arguments(app, argc, argv); rc >= 0) return rc;
  if (o.results.empty()) o.results = o.workspace + "/results";
  if (o.output_base.empty()) {
    const char* home = std::getenv("HOME");
    o.output_base = std::string(home ? home : "/tmp") + "/.cache/potts_attention_refresh/" +
                    potts::sha256_text(o.workspace).substr(0, 16);
  }
  try {
    return run_refresh(o, fingerprints);
  } catch (const std::exception& e) {
    std::cerr << "refresh: error: " << e.what() << "\n";
    return 1;
  }
}
