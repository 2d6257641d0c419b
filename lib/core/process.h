// Running an external program from a stage (freecontact, pandoc): its
// standard output, or a StageError naming the command and what to check.
//
// Tested by //lib/core:process_test.
#pragma once
#include <string>

namespace potts {

// The standard output of `command` (run by /bin/sh); a StageError naming
// the command, its exit status and `hint` if it cannot start or fails.
std::string run_command(const std::string& command, const std::string& hint = "");

// `s` quoted for /bin/sh ('...' with embedded quotes escaped).
std::string shell_quoted(const std::string& s);

}  // namespace potts
