// Stage potts_alpha/fit: one chunk of the sample-complexity experiment
// (paper/spec.md §6). For every M of the plan's grid and the realisations
// r = chunk, chunk + chunks, ...: a random subset of M training sequences,
// factored attention fitted by L-BFGS from a fresh initialisation, test loss
// on the full test set. Random streams depend on (seed, M, r) only.
#include <cmath>

#include "lib/core/stage.h"
#include "lib/plm/sample_complexity.h"

using namespace potts;

int main(int argc, char** argv) {
  return run_stage("potts_alpha_fit", "factored attention by L-BFGS on random training subsets, one chunk", argc,
                   argv, [](Stage& st) {
    const auto plan = nlohmann::json::parse(read_text(st.input("plan/summary.json")));
    const auto chunks = plan.at("chunks").get<std::int64_t>();
    Config& cfg = st.config();
    const auto chunk = cfg.integer("chunk", 0, chunks - 1);
    cfg.finish();
    const auto grid = plan.at("M_grid").get<std::vector<arma::uword>>();
    const auto R = plan.at("realisations").get<arma::uword>();
    const FactoredFitOptions fit = factored_fit_options_from_json(plan.at("estimator"));
    const arma::uword C = plan.at("C").get<arma::uword>();

    const arma::imat pool = h5_read_imatrix(st.input("sample/train.h5"), "sequences");
    const nn::SequenceSet test =
        nn::to_sequence_set(h5_read_imatrix(st.input("sample/test.h5"), "sequences"), C, "sample/test.h5");
    const arma::mat J = h5_read_matrix(st.input("sample/model.h5"), "couplings_J");
    const double L = double(pool.n_cols);

    std::uint64_t work = 0, done = 0;
    for (auto M : grid)
      for (arma::uword r = chunk; r < R; r += chunks) work += M;
    Progress progress("potts_alpha chunk " + std::to_string(chunk), work, "sequences");
    CsvTable table({"M", "alpha", "realisation", "test_loss", "train_loss", "objective", "reconstruction_error",
                    "converged", "status", "iterations", "gradient_norm"});
    int not_converged = 0, fits = 0;
    for (auto M : grid)
      for (arma::uword r = chunk; r < R; r += chunks) {
        const RealisationResult x = run_realisation(pool, test, C, J, M, r, fit, st.seed());
        if (!std::isfinite(x.test_loss))
          throw StageError("M = " + std::to_string(M) + ", realisation " + std::to_string(r) + ": non-finite test loss");
        const bool conv = x.status == LbfgsStatus::kGradientConverged || x.status == LbfgsStatus::kRelativeDecrease;
        not_converged += !conv;
        ++fits;
        table.row({double(M), double(M) / L, double(r), x.test_loss, x.train_loss, x.objective,
                   x.reconstruction_error, conv ? 1.0 : 0.0, double(int(x.status)), double(x.iterations),
                   x.gradient_norm});
        done += M;
        progress.update(done);
      }
    table.save(st.output("realisations.csv"));
    nlohmann::json s;
    s["chunk"] = chunk;
    s["chunks"] = chunks;
    s["fits"] = fits;
    s["not_converged"] = not_converged;
    s["status_codes"] = {{"0", "gradient_converged"}, {"1", "relative_decrease"}, {"2", "max_iterations"},
                         {"3", "line_search_failed"}};
    st.write_summary(s);
  });
}
