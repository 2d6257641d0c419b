// Prints the quick stages' output hashes (golden_sha256.json); see BUILD.
#include <iostream>

#include "tests/determinism/quick_hashes.h"

int main() {
  std::cout << potts::testing_util::quick_stage_hashes().dump(2) << "\n";
  return 0;
}
