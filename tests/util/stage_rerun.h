// Re-running a stage outside Bazel from its provenance record's command line
// (in a test, with the stage's binary and inputs among the test's data).
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace potts::testing_util {

// bazel-out/<config>/bin/x -> x (the runfiles path of a generated file).
inline std::string runfile(const std::string& path) {
  if (path.rfind("bazel-out/", 0) != 0) return path;
  return path.substr(path.find("/bin/") + 5);
}

inline std::string shell_quote(const std::string& s) { return "'" + s + "'"; }

// Runs `binary` (a runfiles path) with the arguments of record["command"],
// inputs and config mapped to runfiles paths, outputs and the provenance
// record written into dir, without the workspace status; stderr goes to
// dir/stderr.txt. config_override, if given, replaces --config; threads, if
// given, --threads (the record must have it). Returns the exit status of the
// shell.
inline int rerun_stage(const nlohmann::json& record, const std::string& binary, const std::string& dir,
                       const std::string& config_override = "", const std::string& threads = "") {
  std::filesystem::create_directories(dir);
  const auto& argv = record["command"];
  std::string cmd = shell_quote(binary);
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string a = argv[i];
    const std::string next = i + 1 < argv.size() ? argv[i + 1].get<std::string>() : "";
    const auto eq = next.find('=');
    if (a == "--status") {
      ++i;
    } else if (a == "--in") {
      cmd += " --in " + shell_quote(next.substr(0, eq + 1) + runfile(next.substr(eq + 1)));
      ++i;
    } else if (a == "--out") {
      cmd += " --out " + shell_quote(next.substr(0, eq + 1) + dir + "/" + next.substr(0, eq));
      ++i;
    } else if (a == "--provenance") {
      cmd += " --provenance " + shell_quote(dir + "/provenance.json");
      ++i;
    } else if (a == "--threads" && !threads.empty()) {
      cmd += " --threads " + shell_quote(threads);
      ++i;
    } else if (a == "--config") {
      cmd += " --config " + shell_quote(config_override.empty() ? runfile(next) : config_override);
      ++i;
    } else {
      cmd += " " + shell_quote(a);
    }
  }
  cmd += " 2> " + shell_quote(dir + "/stderr.txt");
  return std::system(cmd.c_str());
}

}  // namespace potts::testing_util
