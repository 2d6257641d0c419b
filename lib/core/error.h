// Error type shared by all stages: a message meant for a researcher, naming
// the file, the field and what was expected.
//
// Tested by //tests/core:core_test (and every test that expects a StageError).
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace potts {

struct StageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// x with `digits` significant digits (%g-like), for error messages.
inline std::string format_number(double x, int digits) {
  std::ostringstream os;
  os.precision(digits);
  os << x;
  return os.str();
}

}  // namespace potts
