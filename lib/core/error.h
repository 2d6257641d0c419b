// Error type shared by all stages: a message meant for a researcher, naming
// the file, the field and what was expected.
#pragma once
#include <stdexcept>
#include <string>

namespace potts {

struct StageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace potts
