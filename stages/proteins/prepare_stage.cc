#include "stages/proteins/prepare_stage.h"

#include <set>

#include "lib/core/io.h"
#include "lib/core/rng.h"
#include "lib/proteins/covariation.h"
#include "lib/proteins/msa.h"
#include "lib/proteins/structure.h"
#include "stages/proteins/family_stage.h"

namespace potts {

using namespace proteins;

namespace {

// The stage's settings, as its configuration gives them.
struct PrepareRun {
  std::string format, query, pfam;
  int first_residue = 1;
  double identity = 0.0, test_fraction = 0.0, cutoff = 0.0;
  int min_separation = 1;
};

PrepareRun read_run(Config& cfg) {
  PrepareRun r;
  r.format = cfg.choice("format", {"a2m", "aln", "covariation"});
  if (r.format == "a2m")
    r.query = cfg.string("query");
  else if (r.format == "aln")
    r.first_residue = int(cfg.integer("first_residue", -100000, 100000));
  else
    r.pfam = cfg.string("pfam");
  r.identity = cfg.number_open("identity", 0.0, 1.0);
  r.test_fraction = cfg.number_open("test_fraction", 0.0, 1.0);
  r.cutoff = cfg.number_open("contact_cutoff", 0.0, 100.0);
  r.min_separation = int(cfg.integer("min_separation", 1, 100000));
  cfg.finish();
  return r;
}

Alignment read_alignment(const Stage& stage, const PrepareRun& r, const std::string& msa_path) {
  const Alignment a = r.format == "a2m"   ? read_a2m(msa_path, r.query)
                      : r.format == "aln" ? read_aln(msa_path, r.first_residue)
                                          : read_covariation_family(msa_path, family_input(stage, "query", true),
                                                                    family_input(stage, "indices", true), r.pfam);
  const arma::uword N = a.sequences.n_rows;
  if (N < 10) throw StageError(msa_path + ": " + std::to_string(N) + " usable sequences; at least 10 are needed");
  return a;
}

// The structure's contacts between the query's residues (none without one).
std::vector<std::pair<int, int>> read_contacts(const PrepareRun& r, const Alignment& a, const std::string& pdb_path) {
  if (pdb_path.empty()) return {};
  const auto residues = read_pdb_residues(pdb_path);
  check_query_matches(residues, a.residue_numbers, a.query, pdb_path);
  return contacts(residues, a.residue_numbers, r.cutoff, r.min_separation);
}

// train.h5, test.h5 (sequences and weights), train.aln, columns.csv and
// contacts.csv; the number of long-range contacts (|i - j| >= 24).
std::size_t write_family(Stage& stage, const Alignment& a, const arma::vec& w, const arma::uvec& train_rows,
                         const arma::uvec& test_rows, const std::vector<std::pair<int, int>>& contact_list) {
  auto save = [&](const std::string& key, const arma::uvec& rows) {
    H5Writer h5;
    h5.imatrix("sequences", arma::imat(a.sequences.rows(rows)));
    h5.matrix("weights", arma::mat(w.elem(rows)));
    h5.save(stage.output(key));
  };
  save("train.h5", train_rows);
  save("test.h5", test_rows);
  write_text_atomic(stage.output("train.aln"), to_aln(a.sequences.rows(train_rows)));
  CsvTable columns({"column", "residue", "state"});
  for (arma::uword k = 0; k < a.sequences.n_cols; ++k)
    columns.row({double(k), double(a.residue_numbers[k]), double(letter_state(a.query[k]))});
  columns.save(stage.output("columns.csv"));
  CsvTable truth({"i", "j"});
  std::size_t long_range = 0;
  for (const auto& [i, j] : contact_list) {
    truth.row({double(i), double(j)});
    long_range += (j - i >= 24);
  }
  truth.save(stage.output("contacts.csv"));
  return long_range;
}

}  // namespace

void run_proteins_prepare(Stage& stage) {
  const PrepareRun r = read_run(stage.config());
  const std::string msa_path = family_input(stage, "msa", true);
  const std::string pdb_path = family_input(stage, "structure", false);
  const Alignment a = read_alignment(stage, r, msa_path);
  const std::vector<std::pair<int, int>> contact_list = read_contacts(r, a, pdb_path);

  const arma::vec w = sequence_weights(a.sequences, r.identity);
  Rng rng(stage.seed(), kSplitStream);
  const Split sp = cluster_split(a.sequences, r.identity, r.test_fraction, rng);
  if (sp.train.empty() || sp.test.empty())
    throw StageError(msa_path + ": the split by " + std::to_string(r.identity) + "-identity clusters left the " +
                     (sp.train.empty() ? "training" : "test") + " set empty; lower test_fraction or add sequences");
  const arma::uvec train_rows(sp.train), test_rows(sp.test);
  const std::size_t long_range = write_family(stage, a, w, train_rows, test_rows, contact_list);

  nlohmann::json s;
  s["alignment"] = location_independent(msa_path);
  s["format"] = r.format;
  s["query"] = a.names.front();
  s["sequences"] = a.sequences.n_rows;
  s["skipped_ambiguous"] = a.skipped_ambiguous;
  s["L"] = a.sequences.n_cols;
  s["q"] = kStates;
  s["first_residue"] = a.residue_numbers.front();
  s["last_residue"] = a.residue_numbers.back();
  s["identity"] = r.identity;
  s["n_eff"] = arma::accu(w);
  s["n_eff_train"] = arma::accu(w.elem(train_rows));
  s["clusters"] = sp.clusters;
  s["train_sequences"] = sp.train.size();
  s["test_sequences"] = sp.test.size();
  s["structure"] = pdb_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(location_independent(pdb_path));
  s["contacts"] = contact_list.size();
  s["contacts_long_range"] = long_range;
  s["contact_cutoff"] = r.cutoff;
  s["min_separation"] = r.min_separation;
  stage.write_summary(s);
}

}  // namespace potts
