// A minimal real stage used to test the `stage` Bazel rule end to end:
// seeded Gaussian numbers into HDF5 plus a summary.
#include "lib/core/io.h"
#include "lib/core/rng.h"
#include "stages/runtime/stage.h"

int main(int argc, char** argv) {
  return potts::run_stage("toy", "Toy stage exercising tools/stage.bzl.", argc, argv, [](potts::Stage& st) {
    auto n = st.config().integer("n", 1, 1000);
    potts::Rng rng(st.seed(), 5);
    arma::mat x(n, 2);
    for (auto& v : x) v = rng.normal();
    potts::H5Writer w;
    w.matrix("x", x);
    w.save(st.output("data.h5"));
    st.write_summary({{"n", n}, {"mean", arma::mean(arma::vectorise(x))}});
  });
}
