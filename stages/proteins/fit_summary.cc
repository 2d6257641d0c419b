#include "stages/proteins/fit_summary.h"

namespace potts::proteins {

nlohmann::json CouplingFitSummary::to_json() const {
  nlohmann::json s = {{"model", model},
                      {"form", form},
                      {"description", description},
                      {"L", L},
                      {"q", q},
                      {"parameters", parameters},
                      {"weights", weights},
                      {"fit_on", fit_on},
                      {"fit_sequences", fit_sequences},
                      {"train_loss", train_loss},
                      {"test_loss", test_loss},
                      {"test_loss_held_out", fit_on == "train"},
                      {"objective", objective},
                      {"optimiser", optimiser},
                      {"scores", scores}};
  s.update(details);
  return s;
}

bool is_coupling_fit(const nlohmann::json& summary) {
  const std::string m = summary.value("model", "");
  return m == "couplings" || m == "attention_potts" || m == "plm_pad";
}

}  // namespace potts::proteins
