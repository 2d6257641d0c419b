// One changed byte in any committed results/ file fails the audit, naming
// the file: a copy of results/, one file of every kind it holds (png, pdf,
// dat, json, csv, h5, md, ...) with one byte flipped at a time, and
// MANIFEST.json itself at positions spread over the whole file.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "lib/core/io.h"
#include "lib/provenance/results.h"
#include "tests/util/test_util.h"

namespace fs = std::filesystem;

namespace potts::provenance {
namespace {

using testing_util::any_contains;
using testing_util::joined;
using testing_util::tmpdir;

std::string copy_of_results() {
  static const std::string dir = [] {
    const std::string d = tmpdir() + "/results";
    fs::remove_all(d);
    fs::copy("results", d, fs::copy_options::recursive);  // follows the runfiles symlinks
    return d;
  }();
  return dir;
}

// Flips one bit of byte `pos` of dir/rel, audits, restores the file.
std::vector<std::string> audit_with_flip(const std::string& dir, const std::string& rel, std::size_t pos) {
  const std::string path = dir + "/" + rel, orig = read_text(path);
  std::string bad = orig;
  bad[pos] ^= 0x01;
  write_text_atomic(path, bad);
  auto p = audit_results(dir);
  write_text_atomic(path, orig);
  return p;
}

TEST(Tamper, CopyOfResultsPassesTheAudit) {
  auto p = audit_results(copy_of_results());
  EXPECT_TRUE(p.empty()) << joined(p);
}

TEST(Tamper, OneByteOfAFileOfEveryKindFailsNamingIt) {
  const std::string dir = copy_of_results();
  const auto manifest = nlohmann::json::parse(read_text(dir + "/MANIFEST.json"));
  // The first file of each kind (extension), and for JSON one stage
  // summary, one figure summary and one provenance record.
  std::map<std::string, std::string> chosen;
  for (const auto& [rel, m] : manifest["files"].items()) {
    std::string kind = rel.substr(rel.rfind('.') + 1);
    if (kind == "json")
      kind = rel.rfind("provenance/", 0) == 0 ? "json (record)"
             : rel.rfind("figures/", 0) == 0  ? "json (figure)"
                                              : "json";
    chosen.emplace(kind, rel);
  }
  for (const std::string k : {"png", "pdf", "dat", "json", "json (record)", "json (figure)", "csv", "h5", "md"})
    EXPECT_TRUE(chosen.count(k)) << "results/ holds no " << k << " file";
  // Every kind in results/ is covered: the extensions of all its files.
  std::set<std::string> kinds;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != "BUILD" && e.path().filename() != "MANIFEST.json")
      kinds.insert(e.path().extension().string().substr(1));
  for (const auto& k : kinds) EXPECT_TRUE(chosen.count(k) || k == "json") << k;

  for (const auto& [kind, rel] : chosen) {
    const std::size_t size = fs::file_size(dir + "/" + rel);
    for (std::size_t pos : {std::size_t(0), size / 2, size - 1}) {
      auto p = audit_with_flip(dir, rel, pos);
      EXPECT_FALSE(p.empty()) << kind << " " << rel << " byte " << pos << ": not caught";
      EXPECT_TRUE(any_contains(p, rel)) << kind << " " << rel << " byte " << pos << ":\n" << joined(p);
    }
  }
  EXPECT_TRUE(audit_results(dir).empty()) << "restored";
}

// MANIFEST.json: every field is checked against the files and records, and
// the text against the collector's form, so no byte of it can change
// unseen. Positions every 1/31 of the file, plus its first and last bytes.
TEST(Tamper, OneByteOfTheManifestFailsNamingIt) {
  const std::string dir = copy_of_results();
  const std::size_t size = fs::file_size(dir + "/MANIFEST.json");
  std::vector<std::size_t> positions{0, size - 1};
  for (std::size_t k = 1; k < 31; ++k) positions.push_back(size * k / 31);
  for (std::size_t pos : positions) {
    auto p = audit_with_flip(dir, "MANIFEST.json", pos);
    EXPECT_TRUE(any_contains(p, "MANIFEST.json")) << "byte " << pos << ":\n" << joined(p);
  }
}

}  // namespace
}  // namespace potts::provenance
