// The sanitizer build catches each kind of defect it is there for: the three
// planted programs run as subprocesses, and each must fail with its report
// when built under the sanitizers (--config=san: AddressSanitizer with
// LeakSanitizer and UndefinedBehaviorSanitizer, -fno-sanitize-recover=all).
// In a build without them, the same programs exit 0: the control showing
// that the failure comes from the sanitizer, not from the program.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace {

struct Run {
  bool exited_zero;
  std::string err;
};

// Runs a sibling binary of this test (its runfile), stderr captured.
Run run_planted(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  const char* tmp = std::getenv("TEST_TMPDIR");
  EXPECT_TRUE(srcdir && ws && tmp) << "run under bazel test";
  const std::string bin = std::string(srcdir) + "/" + ws + "/tests/sanitizers/" + name;
  const std::string err_file = std::string(tmp) + "/" + name + ".stderr";
  const std::string cmd = "'" + bin + "' >/dev/null 2>'" + err_file + "'";
  const int status = std::system(cmd.c_str());
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  return {status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0, ss.str()};
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddress = true;
#else
constexpr bool kAddress = false;
#endif
#if defined(POTTS_UBSAN)
constexpr bool kUndefined = true;
#else
constexpr bool kUndefined = false;
#endif

void expect(const std::string& name, bool caught, const std::string& report) {
  const Run r = run_planted(name);
  if (caught) {
    EXPECT_FALSE(r.exited_zero) << name << " exited 0 under the sanitizer; stderr:\n" << r.err;
    EXPECT_NE(r.err.find(report), std::string::npos) << name << ": no \"" << report << "\" in its stderr:\n" << r.err;
  } else {
    EXPECT_TRUE(r.exited_zero) << name << " failed without the sanitizer; stderr:\n" << r.err;
  }
}

TEST(PlantedDefects, HeapOverflow) { expect("heap_overflow", kAddress, "heap-buffer-overflow"); }

TEST(PlantedDefects, Leak) { expect("leak", kAddress, "detected memory leaks"); }

TEST(PlantedDefects, SignedOverflow) { expect("signed_overflow", kUndefined, "signed integer overflow"); }

}  // namespace
