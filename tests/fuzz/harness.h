// Running a stage's main in process for the fuzz tests: argv built from a
// configuration and input files, stderr captured, the exit code classified
// (0 success, 1 the project's own error, anything else a finding).
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "lib/core/error.h"
#include "tests/util/fuzz.h"
#include "lib/core/numeric_env.h"

namespace potts::fuzz {

namespace fs = std::filesystem;
using MainFn = int (*)(int, char**);

// In process, the numeric libraries are not pinned by re-executing.
inline void unpinned_numerics() { ::setenv(kUnpinnedVariable, "1", 1); }

// Scratch space, in memory where possible (many small files per case).
inline std::string scratch_dir(const std::string& name) {
  std::string base =
      fs::exists("/dev/shm") ? "/dev/shm" : (std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp");
  const std::string d = base + "/potts_fuzz_" + std::to_string(::getpid()) + "_" + name;
  fs::create_directories(d);
  return d;
}

inline std::string corpus_dir(const std::string& reader) {
  const char* s = std::getenv("TEST_SRCDIR");
  return std::string(s ? s : ".") + "/potts_attention/tests/fuzz/corpus/" + reader;
}

inline std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file(const std::string& p, const std::string& text) {
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// Files under dir/inputs, by input key (their path below inputs/).
inline std::map<std::string, std::string> input_files(const std::string& dir) {
  std::map<std::string, std::string> m;
  const fs::path in = fs::path(dir) / "inputs";
  if (!fs::exists(in)) return m;
  for (const auto& e : fs::recursive_directory_iterator(in))
    if (e.is_regular_file()) m[e.path().lexically_relative(in).string()] = read_file(e.path().string());
  return m;
}

// Runs main with args (argv[0] first); returns the exit code, stderr in err.
inline int run_main(MainFn main_fn, const std::vector<std::string>& args, std::string& err) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream captured, out;
  auto* old_err = std::cerr.rdbuf(captured.rdbuf());
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  int rc = 0;
  try {
    rc = main_fn(int(copy.size()), argv.data());
  } catch (...) {
    std::cerr.rdbuf(old_err);
    std::cout.rdbuf(old_out);
    throw;
  }
  std::cerr.rdbuf(old_err);
  std::cout.rdbuf(old_out);
  err = captured.str();
  return rc;
}

// One case for a Tally: exit 1 with a one-line "<stage>: error: ..." is the
// project's clear error (rethrown as StageError); 0 passes; anything else
// (2 = a foreign exception caught by run_stage) is a finding.
inline void stage_case(MainFn main_fn, const std::vector<std::string>& args) {
  std::string err;
  const int rc = run_main(main_fn, args, err);
  if (rc == 0) return;
  // The last line is the error; earlier lines may be progress reports.
  std::string last = err;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
  if (rc == 1 && last.find(": error: ") != std::string::npos) throw StageError(last);
  throw std::runtime_error("exit code " + std::to_string(rc) + ": " + err);
}

// Mutates a file's text: JSON structurally (if it parses) or byte by byte.
inline std::string mutate_text(Mutator& mut, const std::string& name, const std::string& text) {
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 && mut.chance(0.67)) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_discarded() && j.is_object()) return mut.json(j).dump(2);
  }
  return mut.bytes(text);
}

}  // namespace potts::fuzz
