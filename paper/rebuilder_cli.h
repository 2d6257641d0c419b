// The options //paper:verify and //paper:refresh share (both run stages of a
// results tree through lib/provenance/rebuilder.h): the results tree, the
// source tree, the rebuilder's own output base and the scratch directory.
#pragma once
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

#include "lib/core/io.h"
#include "lib/provenance/verify.h"
#include "paper/cli.h"

namespace potts {

// Adds --results, --workspace, --output-base, --scratch and --keep to app
// (the workspace defaulting to `bazel run`'s BUILD_WORKSPACE_DIRECTORY).
// `cache` names the output base's default folder under ~/.cache; `base_note`
// and `scratch_note` end those two options' help.
inline void add_rebuilder_options(CLI::App& app, provenance::VerifyOptions& o, const std::string& cache,
                                  const std::string& base_note, const std::string& scratch_note) {
  o.workspace = workspace_dir(".");
  app.add_option("--results", o.results, "the results tree (default: results/ of the workspace)");
  app.add_option("--workspace", o.workspace, "the source tree whose code and configurations run the stages")
      ->capture_default_str();
  app.add_option("--output-base", o.output_base,
                 "its own Bazel output base (default ~/.cache/" + cache + "/<workspace hash>)" + base_note +
                     "; an existing directory without the rebuilder's stamp is refused, never removed");
  app.add_option("--scratch", o.scratch,
                 "where stages run: a new or empty directory outside the workspace and results (default a new "
                 "directory under TMPDIR)" +
                     scratch_note);
  app.add_flag("--keep", o.keep, "keep the scratch directory");
}

// The defaults that depend on other options, once they are parsed.
inline void finish_rebuilder_options(provenance::VerifyOptions& o, const std::string& cache) {
  if (o.results.empty()) o.results = o.workspace + "/results";
  if (o.output_base.empty()) {
    const char* home = std::getenv("HOME");
    o.output_base =
        std::string(home ? home : "/tmp") + "/.cache/" + cache + "/" + sha256_text(o.workspace).substr(0, 16);
  }
}

}  // namespace potts
