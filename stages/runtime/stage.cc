#include "stages/runtime/stage.h"

#include <H5public.h>
#include <openssl/opensslv.h>

#include <armadillo>
#include <boost/version.hpp>
#include <cblas.h>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>

#include "lib/core/numeric_env.h"
#include "lib/core/parallel.h"

namespace potts {

Stage::Stage(std::string name, Config config, std::uint64_t seed, std::map<std::string, std::string> inputs,
             std::map<std::string, std::string> outputs)
    : name_(std::move(name)),
      config_(std::move(config)),
      seed_(seed),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)) {}

std::string Stage::input(const std::string& key) const {
  auto it = inputs_.find(key);
  if (it == inputs_.end()) {
    std::string have;
    for (const auto& [k, v] : inputs_) have += " " + k;
    throw StageError("stage " + name_ + ": input '" + key + "' was not given (--in " + key +
                     "=PATH); given:" + (have.empty() ? " none" : have));
  }
  return it->second;
}

std::string Stage::output(const std::string& key) {
  auto it = outputs_.find(key);
  if (it == outputs_.end())
    throw StageError("stage " + name_ + ": output '" + key + "' was not declared (--out " + key + "=PATH)");
  // Nothing is written before the whole configuration is validated: a typo
  // in a key must never cost an existing result.
  config_.finish();
  handed_out_.insert(key);
  return it->second;
}

void Stage::write_summary(const nlohmann::json& summary) {
  write_text_atomic(output("summary.json"), summary.dump(2) + "\n");
}

void Stage::check_outputs_written() const {
  for (const auto& [k, path] : outputs_) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw StageError("stage " + name_ + ": declared output '" + k + "' was not written (" + path + ")");
    std::fclose(f);
  }
}

nlohmann::json toolchain_versions() {
  nlohmann::json t;
#if defined(__clang__)
  t["compiler"] = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  t["compiler"] = std::string("gcc ") + __VERSION__;
#endif
  t["cxx_standard"] = static_cast<long>(__cplusplus);
  t["armadillo"] = arma::arma_version::as_string();
  // OpenBLAS and libm are pinned to kernels every x86-64 CPU runs the same
  // way (lib/core/numeric_env.h); the record says which ran.
  t["openblas"] = openblas_get_config();
  t["openblas_core"] = openblas_get_corename();
  t["numerics"] = numeric_environment();
  t["boost"] = BOOST_LIB_VERSION;
  t["hdf5"] = H5_VERS_INFO;
  t["openssl"] = OPENSSL_VERSION_TEXT;
  t["nlohmann_json"] = std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) +
                       "." + std::to_string(NLOHMANN_JSON_VERSION_PATCH);
  return t;
}

std::string location_independent(const std::string& path) {
  const std::string mark = "bazel-out/";
  if (path.rfind(mark, 0) == 0) return path;
  // "KEY=/abs/.../bazel-out/..." (an --in or --out value) keeps its key.
  const auto at = path.find("/" + mark);
  if (at == std::string::npos) return path;
  const auto eq = path.find('=');
  const std::string key = (eq != std::string::npos && eq < at) ? path.substr(0, eq + 1) : "";
  return key + path.substr(at + 1);
}

// The running executable's hash, computed once per process: it cannot change
// while the process runs, and a test that runs stages in-process many times
// would otherwise read and hash its own (sanitized, multi-megabyte) executable
// for every record.
static const std::string& own_executable_sha256() {
  static const std::string hash = sha256_file("/proc/self/exe");
  return hash;
}

nlohmann::json Stage::provenance(const std::string& target, const std::string& code_version, double wall_seconds,
                                 const std::vector<std::string>& argv) const {
  nlohmann::json p;
  p["stage"] = name_;
  p["target"] = target;
  p["config_file"] = config_.origin();
  p["config_sha256"] = sha256_file(config_.origin());
  p["config"] = config_.json();
  p["seed"] = seed_;
  p["inputs"] = nlohmann::json::object();
  p["upstream"] = nlohmann::json::object();
  for (const auto& [k, path] : inputs_) {
    p["inputs"][k] = {{"path", location_independent(path)}, {"sha256", sha256_file(path)}};
    // An upstream stage's provenance record: embed it, so each record holds
    // the whole chain back to the first stage.
    const std::string suffix = "/provenance.json";
    if (k.size() > suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0)
      p["upstream"][k.substr(0, k.size() - suffix.size())] = read_json(path);
  }
  p["outputs"] = nlohmann::json::object();
  for (const auto& [k, path] : outputs_)
    p["outputs"][k] = {{"path", location_independent(path)}, {"sha256", sha256_file(path)}};
  p["facts"] = facts_;
  p["timings"] = timings_;
  p["code_version"] = code_version;
  p["tool_sha256"] = own_executable_sha256();
  p["toolchain"] = toolchain_versions();
  p["threads"] = threads_;
  p["hardware_threads"] = std::thread::hardware_concurrency();
  p["wall_seconds"] = wall_seconds;
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  p["finished_utc"] = buf;
  // The command as run, location-independent; without --status, whose file
  // only feeds code_version (a volatile field) and which cacheable builds
  // do not pass.
  p["command"] = nlohmann::json::array();
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--status" && i + 1 < argv.size()) {
      ++i;
      continue;
    }
    if (argv[i].rfind("--status=", 0) == 0) continue;
    p["command"].push_back(location_independent(argv[i]));
  }
  return p;
}

// Error messages are one line, whatever the arguments held.
static std::string one_line(std::string m) {
  for (char& c : m)
    if (c == '\n' || c == '\r') c = ' ';
  return m;
}

static std::pair<std::string, std::string> split_kv(const std::string& s, const std::string& flag) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw StageError(flag + " " + one_line(s) + ": expected KEY=PATH");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

static std::map<std::string, std::string> kv_map(const std::vector<std::string>& items, const std::string& flag) {
  std::map<std::string, std::string> m;
  for (const auto& s : items) {
    auto kv = split_kv(s, flag);
    auto [it, fresh] = m.insert(kv);
    if (!fresh && it->second != kv.second)
      throw StageError(
          one_line(flag + " " + kv.first + ": given twice, with paths " + it->second + " and " + kv.second));
  }
  return m;
}

static std::string code_version_from(const std::string& status_file) {
  // Cacheable builds (--config=shared-cache, --config=remote) pass no status
  // file, so that one result serves every commit; tool_sha256 names the code.
  if (status_file.empty()) return "not recorded (no --status file; tool_sha256 identifies the binary)";
  std::istringstream in(read_text(status_file));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("GIT_COMMIT ", 0) == 0) return line.substr(11);
  return "unknown (no GIT_COMMIT in " + status_file + ")";
}

StageArgs parse_stage_args(const std::string& name, const std::string& description, int argc, const char* const* argv) {
  CLI::App app{description, name};
  StageArgs a;
  a.target = "//manual:" + name;
  std::vector<std::string> ins, outs;
  app.add_option("--config", a.config_path, "JSON configuration of the stage")->required();
  app.add_option("--seed", a.seed, "seed of every random stream of the stage")->required();
  app.add_option("--in", ins, "input KEY=PATH (repeatable), e.g. sample/train.h5=...");
  app.add_option("--out", outs, "output KEY=PATH (repeatable), e.g. summary.json=...");
  app.add_option("--provenance", a.provenance_path, "where to write the provenance record (JSON)")->required();
  app.add_option("--status", a.status_path, "Bazel volatile workspace status file (code version)");
  app.add_option("--target", a.target, "Bazel label of the action (for provenance)");
  app.add_option("--threads", a.threads, "threads of the stage's kernels (results do not depend on it)")
      ->check(CLI::Range(1, 256));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    a.help = app.help();
    return a;
  } catch (const CLI::CallForAllHelp&) {
    a.help = app.help("", CLI::AppFormatMode::All);
    return a;
  } catch (const CLI::ParseError& e) {
    throw StageError("command line: " + one_line(e.what()) + " (see --help)");
  }
  a.inputs = kv_map(ins, "--in");
  a.outputs = kv_map(outs, "--out");
  return a;
}

int run_stage(const std::string& name, const std::string& description, int argc, char** argv,
              const std::function<void(Stage&)>& body) {
  // Only the project's own errors (StageError) are expected; anything else
  // escaping is a bug and is reported as such, with exit code 2.
  try {
    // Before anything is computed: the same numeric code paths on every CPU,
    // one BLAS thread (results depend on neither).
    pin_numeric_environment(argv);
    check_numeric_environment();
    const StageArgs args = parse_stage_args(name, description, argc, argv);
    if (!args.help.empty()) {
      std::cout << args.help;
      return 0;
    }
    const auto start = std::chrono::steady_clock::now();
    Stage stage(name, Config::load(args.config_path), args.seed, args.inputs, args.outputs);
    set_parallel_threads(args.threads);
    stage.set_threads(args.threads);
    body(stage);
    stage.config().finish();
    stage.check_outputs_written();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<std::string> argv_copy(argv, argv + argc);
    auto p = stage.provenance(args.target, code_version_from(args.status_path), wall, argv_copy);
    write_text_atomic(args.provenance_path, p.dump(2) + "\n");
    std::cerr << name << ": done in " << wall << " s\n";
    return 0;
  } catch (const StageError& e) {
    std::cerr << name << ": error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << name << ": internal error (a bug; please report): " << e.what() << "\n";
    return 2;
  }
}

Progress::Progress(std::string label, std::uint64_t total, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), total_(total) {
  start_ = last_ = std::chrono::steady_clock::now();
}

void Progress::update(std::uint64_t done) {
  auto now = std::chrono::steady_clock::now();
  if (done < total_ && std::chrono::duration<double>(now - last_).count() < 2.0) return;
  last_ = now;
  double t = std::chrono::duration<double>(now - start_).count();
  double rate = t > 0 ? done / t : 0.0;
  double eta = rate > 0 ? (total_ - done) / rate : 0.0;
  std::fprintf(stderr, "%s: %llu/%llu %s (%.0f%%), %.3g %s/s, %.0f s elapsed, ~%.0f s left\n", label_.c_str(),
               (unsigned long long)done, (unsigned long long)total_, unit_.c_str(),
               total_ ? 100.0 * done / total_ : 100.0, rate, unit_.c_str(), t, eta);
}

}  // namespace potts
