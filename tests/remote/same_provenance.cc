// same_provenance A B: exit 0 when two provenance records of one action are
// equal once the fields that depend on the run (kVolatileProvenanceFields)
// are dropped, at every level of the embedded upstream chain; otherwise
// prints the first differing field and exits 1.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"
#include "stages/runtime/stage.h"

namespace {

void drop_volatile(nlohmann::json& rec) {
  for (const char* f : potts::kVolatileProvenanceFields) rec.erase(f);
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
