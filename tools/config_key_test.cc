// Checks that BUILD files and configs agree where a number lives in both
// (chunk counts, point counts): args are triples `file key value`, each
// requiring the integer `key` at the top of the JSON `file` to equal `value`.
// Wrapped by config_key_test() in tools/config_key_test.bzl.
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  if (argc < 4 || (argc - 1) % 3 != 0) {
    std::fprintf(stderr, "usage: %s file key value [file key value ...]\n", argv[0]);
    return 2;
  }
  int failures = 0;
  for (int a = 1; a + 2 < argc; a += 3) {
    const std::string file = argv[a], key = argv[a + 1], want = argv[a + 2];
    std::ifstream in(file);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (!in || j.is_discarded() || !j.is_object()) {
      std::fprintf(stderr, "%s: cannot read a JSON object\n", file.c_str());
      ++failures;
      continue;
    }
    if (!j.contains(key) || !j[key].is_number_integer()) {
      std::fprintf(stderr, "%s: no integer key \"%s\" (the BUILD file expects %s)\n", file.c_str(), key.c_str(),
                   want.c_str());
      ++failures;
      continue;
    }
    const std::string have = std::to_string(j[key].get<long long>());
    if (have != want) {
      std::fprintf(stderr, "%s: \"%s\" is %s but the BUILD file builds %s; change one to match the other\n",
                   file.c_str(), key.c_str(), have.c_str(), want.c_str());
      ++failures;
    } else {
      std::printf("%s: \"%s\" = %s, as in the BUILD file\n", file.c_str(), key.c_str(), have.c_str());
    }
  }
  return failures ? 1 : 0;
}
