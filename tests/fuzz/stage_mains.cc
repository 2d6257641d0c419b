// Every stage's body behind a main-like entry point fuzz_main_<stage>, run
// in process by the fuzz tests exactly as the stage binary runs it: through
// run_stage (command line, configuration, body, exit code).
#include "stages/claims/claims_stage.h"
#include "stages/diversity/diversity_fit_stage.h"
#include "stages/diversity/diversity_merge_stage.h"
#include "stages/figures/figure_stage.h"
#include "stages/gaussian_sim/gaussian_merge_stage.h"
#include "stages/gaussian_sim/gaussian_model_stage.h"
#include "stages/gaussian_sim/gaussian_simulate_stage.h"
#include "stages/perturb/perturb_merge_stage.h"
#include "stages/perturb/perturb_stage.h"
#include "stages/potts_alpha/potts_alpha_fit_stage.h"
#include "stages/potts_alpha/potts_alpha_merge_stage.h"
#include "stages/potts_alpha/potts_alpha_plan_stage.h"
#include "stages/replica/replica_stage.h"
#include "stages/train/train_merge_stage.h"
#include "stages/train/train_stage.h"

#define FUZZ_MAIN(s, body) \
  int fuzz_main_##s(int argc, char** argv) { return potts::run_stage(#s, "fuzzed in process", argc, argv, body); }

FUZZ_MAIN(train, potts::run_train)
FUZZ_MAIN(train_merge, potts::run_train_merge)
FUZZ_MAIN(perturb, potts::run_perturb)
FUZZ_MAIN(perturb_merge, potts::run_perturb_merge)
FUZZ_MAIN(gaussian_model, potts::run_gaussian_model)
FUZZ_MAIN(gaussian_simulate, potts::run_gaussian_simulate)
FUZZ_MAIN(gaussian_merge, potts::run_gaussian_merge)
FUZZ_MAIN(replica, potts::run_replica)
FUZZ_MAIN(potts_alpha_plan, potts::run_potts_alpha_plan)
FUZZ_MAIN(potts_alpha_fit, potts::run_potts_alpha_fit)
FUZZ_MAIN(potts_alpha_merge, potts::run_potts_alpha_merge)
FUZZ_MAIN(diversity_fit, potts::run_diversity_fit)
FUZZ_MAIN(diversity_merge, potts::run_diversity_merge)
FUZZ_MAIN(claims, potts::run_claims)
FUZZ_MAIN(figures, potts::figures::run_figures)
