#include "stages/proteins/freecontact_stage.h"

#include <filesystem>

#include "lib/core/io.h"
#include "lib/core/process.h"
#include "lib/proteins/msa.h"
#include "lib/proteins/predictors.h"
#include "stages/proteins/family_stage.h"

namespace potts {

void run_proteins_freecontact(Stage& stage) {
  Config& cfg = stage.config();
  const std::string profile = cfg.choice("profile", {"evfold", "psicov"});
  // "all": every sequence of the family, as contact tools are run (the
  // prepare stage's training clusters, then the held-out ones); "train":
  // the training clusters alone (train.aln).
  const std::string fit_on = cfg.choice("fit_on", {"all", "train"});
  cfg.finish();
  std::string aln = stage.input("family/train.aln");
  arma::uword fit_sequences = 0;
  struct RemoveOnExit {
    std::string path;
    ~RemoveOnExit() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove(path, ec);
    }
  } written;
  if (fit_on == "all") {
    const proteins::FamilyData f = proteins::read_family(stage);
    const arma::imat all = arma::join_cols(nn::to_imat(f.train), nn::to_imat(f.test));
    fit_sequences = all.n_rows;
    aln = stage.output("freecontact.txt") + ".all.aln.tmp";  // freecontact reads a file; removed on return
    written.path = aln;
    write_text_atomic(aln, proteins::to_aln(all));
  } else {
    for (char c : read_text(aln)) fit_sequences += c == '\n';
  }
  const std::string columns = stage.input("family/columns.csv");
  const arma::uword L = csv_column(read_csv(columns), columns, "residue").size();
  const std::string binary = "/usr/bin/freecontact";
  const std::string hint = "is Debian's freecontact installed? (tools/bazel installs it)";
  std::string version = run_command(binary + " --version", hint);
  while (!version.empty() && (version.back() == '\n' || version.back() == '\r')) version.pop_back();
  const std::string text =
      run_command(binary + " --parprof " + profile + " --threads 1 --quiet 1 --ali " + shell_quoted(aln), hint);
  const arma::mat scores = proteins::parse_freecontact(text, binary + " output", L, profile);
  write_text_atomic(stage.output("freecontact.txt"), text);
  H5Writer h5;
  h5.matrix("scores", scores);
  h5.save(stage.output("scores.h5"));
  std::size_t pairs = 0;
  for (char c : text) pairs += c == '\n';
  nlohmann::json s = {{"model", profile},
                      {"profile", profile},
                      {"freecontact", binary},
                      {"freecontact_version", version},
                      {"pairs_listed", pairs},
                      {"fit_on", fit_on},
                      {"fit_sequences", fit_sequences},
                      {"L", L},
                      {"scores", profile == "evfold" ? "freecontact's corrected norm (CN), APC-corrected by freecontact"
                                                     : "freecontact's PSICOV score"}};
  stage.write_summary(s);
}

}  // namespace potts
