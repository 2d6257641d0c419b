#include "stages/proteins/prepare_stage.h"

#include <set>

#include "lib/core/io.h"
#include "lib/core/rng.h"
#include "lib/proteins/covariation.h"
#include "lib/proteins/msa.h"
#include "stages/proteins/family_stage.h"
#include "lib/proteins/structure.h"

namespace potts {

using namespace proteins;

void run_proteins_prepare(Stage& st) {
  Config& cfg = st.config();
  const std::string format = cfg.choice("format", {"a2m", "aln", "covariation"});
  std::string query, pfam;
  int first_residue = 1;
  if (format == "a2m")
    query = cfg.string("query");
  else if (format == "aln")
    first_residue = int(cfg.integer("first_residue", -100000, 100000));
  else
    pfam = cfg.string("pfam");
  const double identity = cfg.number_open("identity", 0.0, 1.0);
  const double test_fraction = cfg.number_open("test_fraction", 0.0, 1.0);
  const double cutoff = cfg.number_open("contact_cutoff", 0.0, 100.0);
  const int min_separation = int(cfg.integer("min_separation", 1, 100000));
  cfg.finish();

  const std::string msa_path = family_input(st, "msa", true);
  const std::string pdb_path = family_input(st, "structure", false);
  const Alignment a = format == "a2m"   ? read_a2m(msa_path, query)
                      : format == "aln" ? read_aln(msa_path, first_residue)
                                        : read_covariation_family(msa_path, family_input(st, "query", true),
                                                                  family_input(st, "indices", true), pfam);
  const arma::uword N = a.sequences.n_rows, L = a.sequences.n_cols;
  if (N < 10) throw StageError(msa_path + ": " + std::to_string(N) + " usable sequences; at least 10 are needed");

  std::vector<std::pair<int, int>> contact_list;
  if (!pdb_path.empty()) {
    const auto residues = read_pdb_residues(pdb_path);
    check_query_matches(residues, a.residue_numbers, a.query, pdb_path);
    contact_list = contacts(residues, a.residue_numbers, cutoff, min_separation);
  }

  const arma::vec w = sequence_weights(a.sequences, identity);
  Rng rng(st.seed(), kSplitStream);
  const Split sp = cluster_split(a.sequences, identity, test_fraction, rng);
  if (sp.train.empty() || sp.test.empty())
    throw StageError(msa_path + ": the split by " + std::to_string(identity) + "-identity clusters left the " +
                     (sp.train.empty() ? "training" : "test") + " set empty; lower test_fraction or add sequences");
  const arma::uvec train_rows(sp.train), test_rows(sp.test);

  auto save = [&](const std::string& key, const arma::uvec& rows) {
    H5Writer h5;
    h5.imatrix("sequences", arma::imat(a.sequences.rows(rows)));
    h5.matrix("weights", arma::mat(w.elem(rows)));
    h5.save(st.output(key));
  };
  save("train.h5", train_rows);
  save("test.h5", test_rows);
  write_text_atomic(st.output("train.aln"), to_aln(a.sequences.rows(train_rows)));

  CsvTable columns({"column", "residue", "state"});
  for (arma::uword k = 0; k < L; ++k)
    columns.row({double(k), double(a.residue_numbers[k]), double(letter_state(a.query[k]))});
  columns.save(st.output("columns.csv"));
  CsvTable truth({"i", "j"});
  std::size_t long_range = 0;
  for (const auto& [i, j] : contact_list) {
    truth.row({double(i), double(j)});
    long_range += (j - i >= 24);
  }
  truth.save(st.output("contacts.csv"));

  nlohmann::json s;
  s["alignment"] = location_independent(msa_path);
  s["format"] = format;
  s["query"] = a.names.front();
  s["sequences"] = N;
  s["skipped_ambiguous"] = a.skipped_ambiguous;
  s["L"] = L;
  s["q"] = kStates;
  s["first_residue"] = a.residue_numbers.front();
  s["last_residue"] = a.residue_numbers.back();
  s["identity"] = identity;
  s["n_eff"] = arma::accu(w);
  s["n_eff_train"] = arma::accu(w.elem(train_rows));
  s["clusters"] = sp.clusters;
  s["train_sequences"] = sp.train.size();
  s["test_sequences"] = sp.test.size();
  s["structure"] = pdb_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(location_independent(pdb_path));
  s["contacts"] = contact_list.size();
  s["contacts_long_range"] = long_range;
  s["contact_cutoff"] = cutoff;
  s["min_separation"] = min_separation;
  st.write_summary(s);
}

}  // namespace potts
