// run_command and shell_quoted: output, failures named, quoting that
// survives the shell.
#include "lib/core/process.h"

#include <gtest/gtest.h>

#include "lib/core/error.h"

namespace potts {
namespace {

TEST(Process, OutputOfACommand) { EXPECT_EQ(run_command("printf 'a\\nb'"), "a\nb"); }

TEST(Process, AFailingCommandIsAnErrorNamingItAndTheHint) {
  try {
    run_command("exit 3", "is it installed?");
    FAIL() << "no error";
  } catch (const StageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'exit 3' failed (exit status 3)"), std::string::npos) << m;
    EXPECT_NE(m.find("is it installed?"), std::string::npos) << m;
  }
}

TEST(Process, QuotingSurvivesTheShell) {
  const std::string nasty = "it's a $HOME `x` \"y\" \\z";
  EXPECT_EQ(run_command("printf '%s' " + shell_quoted(nasty)), nasty);
}

}  // namespace
}  // namespace potts
