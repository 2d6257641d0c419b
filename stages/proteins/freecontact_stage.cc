#include "stages/proteins/freecontact_stage.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <sstream>

#include "lib/core/io.h"
#include "lib/proteins/predictors.h"
#include "stages/proteins/family_stage.h"

namespace potts {

namespace {

// The standard output of `command`; an error naming it if it fails.
std::string run_command(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw StageError("cannot run '" + command + "'");
  std::string out;
  std::array<char, 65536> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw StageError("'" + command + "' failed (exit status " +
                     std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                     "); is Debian's freecontact installed? (tools/bazel installs it)");
  return out;
}

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

void run_proteins_freecontact(Stage& st) {
  Config& cfg = st.config();
  const std::string profile = cfg.choice("profile", {"evfold", "psicov"});
  cfg.finish();
  const std::string aln = st.input("family/train.aln");
  const std::string columns = st.input("family/columns.csv");
  const arma::uword L = csv_column(read_csv(columns), columns, "residue").size();
  const std::string binary = "/usr/bin/freecontact";
  std::string version = run_command(binary + " --version");
  while (!version.empty() && (version.back() == '\n' || version.back() == '\r')) version.pop_back();
  const std::string text =
      run_command(binary + " --parprof " + profile + " --threads 1 --quiet 1 --ali " + shell_quoted(aln));
  const arma::mat scores = proteins::parse_freecontact(text, binary + " output", L, profile);
  write_text_atomic(st.output("freecontact.txt"), text);
  H5Writer h5;
  h5.matrix("scores", scores);
  h5.save(st.output("scores.h5"));
  std::size_t pairs = 0;
  for (char c : text) pairs += c == '\n';
  nlohmann::json s;
  s["model"] = profile;
  s["profile"] = profile;
  s["freecontact"] = binary;
  s["freecontact_version"] = version;
  s["pairs_listed"] = pairs;
  s["L"] = L;
  s["scores"] = profile == "evfold" ? "freecontact's corrected norm (CN), APC-corrected by freecontact"
                                    : "freecontact's PSICOV score";
  st.write_summary(s);
}

}  // namespace potts
