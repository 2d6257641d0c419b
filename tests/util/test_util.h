// Helpers shared by the unit tests.
#pragma once
#include <cstdlib>
#include <functional>
#include <string>

#include "lib/core/error.h"

namespace potts::testing_util {

// Bazel's per-test scratch directory (TEST_TMPDIR), or /tmp outside Bazel.
inline std::string tmpdir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

// The message of the StageError that f throws, or "" if it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const StageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace potts::testing_util
