// The paper tools' command lines (CLI11): --help prints the usage and exits
// 0; a bad argument prints what is wrong, with a pointer to --help, and
// exits 2.
#pragma once
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

namespace potts {

// The source tree when run by `bazel run` (which sets
// BUILD_WORKSPACE_DIRECTORY), else `fallback`.
inline std::string workspace_dir(const std::string& fallback = "") {
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  return ws ? std::string(ws) : fallback;
}

// The source tree's results/ under `bazel run`, else "results" (a test's
// runfiles); "" with `required` and no workspace.
inline std::string results_dir(bool required = false) {
  const std::string ws = workspace_dir();
  if (!ws.empty()) return ws + "/results";
  return required ? "" : "results";
}

// Parses argv into app: the exit code if the tool should stop now (0 after
// --help, 2 after a bad argument), -1 if it should go on.
inline int parse_arguments(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return -1;
}

}  // namespace potts
