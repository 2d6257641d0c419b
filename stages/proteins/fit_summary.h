// The one summary a coupling-model fit of the proteins branch writes
// (summary.json of the couplings, attention and plm_pad stages), and what
// the score stage reads of it: each stage names its own model, and the
// score stage knows a coupling-model fit by that name.
#pragma once
#include <string>

#include <armadillo>
#include <nlohmann/json.hpp>

namespace potts::proteins {

struct CouplingFitSummary {
  std::string model;        // the stage's model: "couplings", "attention_potts" or "plm_pad"
  std::string form;         // "full", "factored", "softmax attention"
  std::string description;  // one line: the form and its settings
  arma::uword L = 0, q = 0, parameters = 0, fit_sequences = 0;
  std::string weights;  // "identity" (the prepare stage's) or "none"
  std::string fit_on;   // "all" or "train" (the test loss then held out)
  double train_loss = 0.0, test_loss = 0.0, objective = 0.0;
  std::string optimiser;
  std::string scores;                                 // how the contact scores were made
  nlohmann::json details = nlohmann::json::object();  // the model's settings and the optimiser's record

  // The summary's JSON: the fields above (test_loss_held_out from fit_on),
  // then `details`' keys.
  nlohmann::json to_json() const;
};

// Whether a summary.json is a coupling-model fit's (it has an "objective"
// that the score stage reports).
bool is_coupling_fit(const nlohmann::json& summary);

}  // namespace potts::proteins
