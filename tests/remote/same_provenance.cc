// same_provenance A B: exit 0 when two provenance records of one action are
// equal once the fields that depend on the run (kVolatileProvenanceFields)
// are dropped, at every level of the embedded upstream chain (with the
// hashes of upstream records, which cover those fields); otherwise
// prints the first differing field and exits 1.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"
#include "stages/runtime/stage.h"

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void drop_volatile(nlohmann::json& rec) {
  for (const char* f : potts::kVolatileProvenanceFields) rec.erase(f);
  // An upstream record's hash covers its volatile fields too; the record
  // itself is compared below, under "upstream".
  if (rec.contains("inputs"))
    for (auto& [k, in] : rec["inputs"].items())
      if (ends_with(k, "provenance.json")) in.erase("sha256");
  if (rec.contains("upstream"))
    for (auto& [k, up] : rec["upstream"].items()) drop_volatile(up);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: same_provenance A.json B.json\n";
    return 2;
  }
  try {
    auto a = potts::read_json(argv[1]);
    auto b = potts::read_json(argv[2]);
    drop_volatile(a);
    drop_volatile(b);
    if (a == b) return 0;
    const auto diff = nlohmann::json::diff(a, b);
    std::cerr << argv[1] << " and " << argv[2] << " differ beyond the volatile fields, first at "
              << diff.at(0).value("path", "?") << ": " << diff.at(0).dump() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "same_provenance: " << e.what() << "\n";
    return 2;
  }
}
