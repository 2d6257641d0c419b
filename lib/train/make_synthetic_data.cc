// Writes model.h5, train.h5, test.h5 in the sample stage's format from the
// test Gibbs sampler, for experiments with the train stage before (or
// independently of) //stages/sample. Usage:
//   make_synthetic_data OUTDIR L C KIND BETA M_TRAIN M_TEST SPACING SEED
#include <cstdio>
#include <string>

#include "lib/core/io.h"
#include "lib/train/synthetic.h"

int main(int argc, char** argv) {
  using namespace potts;
  if (argc != 10) {
    std::fprintf(stderr, "usage: %s OUTDIR L C KIND BETA M_TRAIN M_TEST SPACING SEED\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const arma::uword L = std::stoul(argv[2]), C = std::stoul(argv[3]);
  PottsModel m = make_potts_model(L, C, parse_colour_kind(argv[4]), std::stod(argv[5]), std::stoull(argv[9]));
  const arma::uword Mtr = std::stoul(argv[6]), Mte = std::stoul(argv[7]);
  nn::SequenceSet all = testing::gibbs_sequences(m, Mtr + Mte, std::stoi(argv[8]), 1000, std::stoull(argv[9]));
  arma::imat x = nn::to_imat(all);
  // interleaved: every fourth saved configuration goes to the test set while it lasts
  arma::imat tr(Mtr, L), te(Mte, L);
  arma::uword a = 0, b = 0;
  for (arma::uword k = 0; k < x.n_rows; ++k) {
    if ((k % 4 == 3 && b < Mte) || a == Mtr)
      te.row(b++) = x.row(k);
    else
      tr.row(a++) = x.row(k);
  }
  H5Writer w;
  w.matrix("couplings_J", m.couplings_J);
  w.matrix("colour_similarity_U", m.colour_similarity_U);
  w.scalar("beta", m.beta);
  w.save(dir + "/model.h5");
  H5Writer w1;
  w1.imatrix("sequences", tr);
  w1.save(dir + "/train.h5");
  H5Writer w2;
  w2.imatrix("sequences", te);
  w2.save(dir + "/test.h5");
  std::printf("hamming %.4f  eps* %.5f\n", mean_hamming_distance(te), optimal_test_loss(m, te));
  return 0;
}
