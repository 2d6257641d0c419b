#include "lib/core/process.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

#include "lib/core/error.h"

namespace potts {

std::string run_command(const std::string& command, const std::string& hint) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw StageError("cannot run '" + command + "'" + (hint.empty() ? "" : "; " + hint));
  std::string out;
  std::array<char, 65536> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw StageError("'" + command + "' failed (exit status " +
                     std::to_string(status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")" +
                     (hint.empty() ? "" : "; " + hint));
  return out;
}

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace potts
