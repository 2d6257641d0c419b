#include "stages/proteins/export_stage.h"

#include "lib/core/io.h"
#include "lib/proteins/formats.h"
#include "stages/proteins/family_stage.h"

namespace potts {

void run_proteins_export(Stage& stage) {
  Config& cfg = stage.config();
  const std::string target = cfg.string("target");
  const int min_separation = int(cfg.integer("min_separation", 1, 100000));
  const std::size_t per_residue = std::size_t(cfg.integer("pairs_per_residue", 1, 1000));
  cfg.finish();
  const proteins::FamilyData f = proteins::read_family(stage);
  const arma::uword L = f.residues.size();
  nlohmann::json runs = nlohmann::json::object();
  for (const auto& [key, path] : stage.inputs()) {
    const auto slash = key.find('/');
    if (slash == std::string::npos || key.substr(slash + 1) != "scores.h5" || key.substr(0, slash) == "family")
      continue;
    const std::string run = key.substr(0, slash);
    const arma::mat S = h5_read_matrix(path, "scores");
    if (S.n_rows != L || S.n_cols != L)
      throw StageError(path + ": 'scores' is " + std::to_string(S.n_rows) + " x " + std::to_string(S.n_cols) +
                       ", expected " + std::to_string(L) + " x " + std::to_string(L) + " (the family's columns)");
    h5_check_finite(path, "scores", S);
    if (stage.wants(run + ".mat"))
      write_text_atomic(stage.output(run + ".mat"), proteins::score_matrix_text(S, f.residues));
    if (stage.wants(run + ".rr")) {
      const std::string rr =
          proteins::rr_text(S, f.residues, f.query, target, run, min_separation, per_residue * std::size_t(L));
      write_text_atomic(stage.output(run + ".rr"), rr);
    }
    runs[run] = {{"L", L}};
  }
  stage.write_summary({{"target", target}, {"runs", runs}, {"min_separation", min_separation}});
}

}  // namespace potts
