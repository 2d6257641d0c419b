// libFuzzer entry point for one merge stage (tools/fuzz merge_<stage>): the
// stage's main, compiled in as fuzz_main (-Dmain=fuzz_main), runs on the
// seed set tests/fuzz/corpus/merge_<stage>/ (FUZZ_MERGE_DIR) with one file
// replaced: the input's first byte picks the file (config.json or an input),
// the rest is its new content. Exit code 1 (the stage's own error) and 0 are
// fine; anything else aborts, so libFuzzer reports it.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

int fuzz_main(int argc, char** argv);

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::vector<std::string> names, args;
  static std::string work;
  if (names.empty()) {
    setenv("POTTS_UNPINNED_NUMERICS", "1", 1);
    const char* src = getenv("FUZZ_MERGE_DIR");
    const char* stage = getenv("FUZZ_MERGE_STAGE");
    const char* outs = getenv("FUZZ_MERGE_OUTPUTS");
    if (!src || !stage || !outs) abort();
    work = "/dev/shm/potts_libfuzzer_merge_" + std::to_string(getpid());
    fs::remove_all(work);
    fs::copy(src, work, fs::copy_options::recursive);
    names.push_back("config.json");
    args = {stage, "--config", work + "/config.json", "--seed", "1", "--provenance", work + "/provenance.json"};
    std::vector<std::string> keys;  // sorted, as tools/fuzz numbers the seeds
    for (const auto& e : fs::recursive_directory_iterator(work + "/inputs"))
      if (e.is_regular_file()) keys.push_back(e.path().lexically_relative(work + "/inputs").string());
    std::sort(keys.begin(), keys.end());
    for (const auto& key : keys) {
      names.push_back("inputs/" + key);
      args.push_back("--in");
      args.push_back(key + "=" + work + "/inputs/" + key);
    }
    std::istringstream o(outs);
    for (std::string k; std::getline(o, k, ',');) {
      args.push_back("--out");
      args.push_back(k + "=" + work + "/" + k);
    }
  }
  if (size == 0) return 0;
  const std::string name = names[data[0] % names.size()];
  const std::string path = work + "/" + name;
  std::ifstream in(path, std::ios::binary);
  const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data + 1), long(size - 1));
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream sink;
  auto* old = std::cerr.rdbuf(sink.rdbuf());
  const int rc = fuzz_main(int(copy.size()), argv.data());
  std::cerr.rdbuf(old);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << original;
  if (rc != 0 && rc != 1) {
    std::cerr << "exit code " << rc << ": " << sink.str();
    abort();
  }
  return 0;
}
