#include "stages/proteins/family_stage.h"

#include "lib/core/io.h"
#include "lib/proteins/msa.h"

namespace potts::proteins {

std::string family_input(const Stage& stage, const std::string& key, bool required) {
  std::string found;
  for (const auto& [k, path] : stage.inputs())
    if (k.rfind(key + "/", 0) == 0) {
      if (!found.empty()) throw StageError("input '" + key + "' is given more than once (" + found + ", " + path + ")");
      found = path;
    }
  if (found.empty() && required) throw StageError("input '" + key + "/<file>' is required and was not given");
  return found;
}

FamilyData read_family(const Stage& stage) {
  FamilyData f;
  const std::string train = stage.input("family/train.h5"), test = stage.input("family/test.h5");
  f.train = nn::to_sequence_set(h5_read_imatrix(train, "sequences"), kStates, train + " 'sequences'");
  f.test = nn::to_sequence_set(h5_read_imatrix(test, "sequences"), kStates, test + " 'sequences'");
  f.train_weights = arma::vectorise(h5_read_matrix(train, "weights"));
  const std::string columns = stage.input("family/columns.csv");
  const auto table = read_csv(columns);
  const auto& residue = csv_column(table, columns, "residue");
  const auto& state = csv_column(table, columns, "state");
  if (residue.size() != f.train.L)
    throw StageError(columns + ": " + std::to_string(residue.size()) + " rows, expected one per column (" +
                     std::to_string(f.train.L) + ")");
  for (std::size_t k = 0; k < residue.size(); ++k) {
    f.residues.push_back(int(residue[k]));
    f.query += state_letter(int(csv_index(state[k], kStates - 1, columns + " 'state'")));
  }
  const std::string contacts = stage.input("family/contacts.csv");
  const auto c = read_csv(contacts);
  const auto& ci = csv_column(c, contacts, "i");
  const auto& cj = csv_column(c, contacts, "j");
  for (std::size_t k = 0; k < ci.size(); ++k) f.contacts.insert({int(ci[k]), int(cj[k])});
  f.has_structure = read_json(stage.input("family/summary.json")).at("structure").is_string();
  return f;
}

}  // namespace potts::proteins
