// A small synthetic stand-in for the sample, train and sweep stages, so the
// figures, //paper collection and audit machinery are tested end to end
// without the (slower, separately owned) science stages. Same output
// interface as the real stages: model.h5 "couplings_J", params.h5
// "attention_map", curves.csv, a sweep CSV, summary.json.
#include <cmath>

#include "lib/core/io.h"
#include "lib/core/rng.h"
#include "stages/runtime/stage.h"

int main(int argc, char** argv) {
  using namespace potts;
  return run_stage("fixture", "Synthetic upstream outputs for testing figures.", argc, argv, [](Stage& st) {
    auto& c = st.config();
    const std::string kind = c.choice("kind", {"sample", "train", "sweep"});
    const int L = static_cast<int>(c.integer("L", 2, 100));
    Rng rng(st.seed(), 1);
    if (kind == "sample") {
      arma::mat J(L, L, arma::fill::zeros);
      for (int i = 0; i < L; ++i)
        for (int j = i + 1; j < L; ++j) J(i, j) = J(j, i) = rng.normal();
      H5Writer w;
      w.matrix("couplings_J", J);
      w.save(st.output("model.h5"));
      st.write_summary({{"beta", 0.5}, {"hamming_distance", 0.3}, {"optimal_test_loss", 0.8}, {"L", L}, {"C", L}});
    } else if (kind == "train") {
      // Attention map = scale * J + noise, so e_rec is small but not zero.
      arma::mat J = h5_read_matrix(st.input("sample/model.h5"), "couplings_J");
      const double noise = c.number("noise", 0, 10);
      arma::mat A = 0.5 * J;
      for (auto& v : A) v += noise * rng.normal();
      H5Writer w;
      w.matrix("attention_map", A);
      w.save(st.output("params.h5"));
      CsvTable t({"epoch", "train_loss", "test_loss", "optimal_test_loss", "reconstruction_error", "lr"});
      for (int e = 1; e <= 20; ++e)
        t.row({double(e), 0.8 + 1.0 / e, 0.8 + noise + 1.0 / e, 0.8, noise / (noise + 0.1) + 0.5 / e, 0.1});
      t.save(st.output("curves.csv"));
      st.write_summary({{"final_test_loss", 0.8 + noise + 0.05}, {"reconstruction_error", noise / (noise + 0.1)}});
    } else {
      CsvTable t({"a", "seed", "test_loss"});
      const std::vector<int> seeds{0, 1, 2};
      for (double a : {0.0, 0.1, 0.3, 1.0})
        for (int s : seeds) t.row({a, double(s), 0.8 + a * a + 0.01 * rng.normal()});
      t.save(st.output("sweep.csv"));
      st.write_summary({{"points", 4}, {"seeds", seeds}});
    }
  });
}
