// Error type shared by all stages: a message meant for a researcher, naming
// the file, the field and what was expected.
//
// Tested by //tests/core:core_test (and every test that expects a StageError).
#pragma once
#include <stdexcept>
#include <string>

namespace potts {

struct StageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace potts
