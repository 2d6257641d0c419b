// VanillaTransformer against an independent implementation: the model of
// paper/spec.md §2 written directly in PyTorch (float64, autograd) by
// lib/nn/testdata/vanilla_reference.py, which saved weights, batches, the
// summed cross-entropy and every parameter's gradient. The C++ model loads
// the same weights and must give the same loss and gradients.
//
// Tolerances (relative to the largest gradient entry of a case). Double: the
// two implementations evaluate the same functions in different orders, so
// they differ by rounding only (measured: at most 4e-16); 1e-12 leaves a
// margin of 2500 and still catches any wrong term (a missing bias, a
// transposed weight, a wrong scale, a biased vs unbiased variance change
// entries at the 1e-2 level or more; DetectsAPerturbedWeight shows a change
// of 1e-3 in one weight is seen). Float: the passes run in float (unit
// roundoff 6e-8) through up to three blocks (measured: at most 2.2e-7);
// 1e-5 leaves a margin of 45.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lib/nn/transformer.h"

namespace potts {
namespace nn {
namespace {

nlohmann::json load_reference() {
  const std::string path = "lib/nn/testdata/vanilla_reference.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  return nlohmann::json::parse(in);
}

struct Result {
  double loss = 0, ref_loss = 0, worst = 0;
  std::string worst_param;
};

Result run_case(const nlohmann::json& c, Precision precision) {
  const auto& o = c.at("options");
  TransformerOptions opt;
  opt.L = o.at("L");
  opt.C = o.at("C");
  opt.d = o.at("d");
  opt.ffn_width = o.at("ffn_width");
  opt.layers = o.at("layers");
  opt.layernorm_eps = o.at("layernorm_eps");
  opt.head = "linear";
  opt.output_projection = true;
  VanillaTransformer model(opt, precision);
  model.initialise(1);

  std::vector<Param> params = model.parameters();
  const auto& ref = c.at("parameters");
  EXPECT_EQ(params.size(), ref.size()) << "the reference and the model have different parameter lists";
  for (Param& p : params) {
    const auto& r = ref.at(p.name);
    const arma::uword rows = r.at("shape")[0], cols = r.at("shape")[1];
    EXPECT_EQ(p.value->n_rows, rows) << p.name;
    EXPECT_EQ(p.value->n_cols, cols) << p.name;
    *p.value = arma::reshape(arma::vec(r.at("value").get<std::vector<double>>()), rows, cols);
  }

  const auto seqs = c.at("sequences").get<std::vector<std::vector<int>>>();
  SequenceSet data;
  data.M = seqs.size();
  data.L = opt.L;
  for (const auto& s : seqs) data.s.insert(data.s.end(), s.begin(), s.end());
  Batch batch;
  batch.data = &data;
  for (arma::uword m = 0; m < data.M; ++m) batch.rows.push_back(m);
  batch.masked = c.at("masked").get<std::vector<int>>();

  model.zero_gradients();
  Result res;
  res.loss = model.forward_backward(batch, true);
  res.ref_loss = c.at("loss");
  // Differences relative to the largest reference gradient entry of the
  // case, not of each parameter: the gradient of b_k is zero in exact
  // arithmetic (adding b_k shifts every score of a query by the same q.b_k,
  // which the softmax ignores), so both sides hold rounding noise there.
  std::vector<arma::mat> want;
  double scale = 1e-300;
  for (const Param& p : params) {
    const auto& r = ref.at(p.name);
    want.push_back(arma::reshape(arma::vec(r.at("grad").get<std::vector<double>>()), p.grad->n_rows, p.grad->n_cols));
    scale = std::max(scale, arma::abs(want.back()).max());
  }
  for (std::size_t k = 0; k < params.size(); ++k) {
    const double diff = arma::abs(*params[k].grad - want[k]).max() / scale;
    if (diff > res.worst) res.worst = diff, res.worst_param = params[k].name;
  }
  return res;
}

// Every reference case at one precision: loss and gradients within `tol`
// (relative), each case's numbers printed to the test log.
void expect_matches_reference(Precision precision, double tol) {
  const nlohmann::json ref = load_reference();
  ASSERT_GE(ref.at("cases").size(), 3u);
  for (const auto& c : ref.at("cases")) {
    const Result r = run_case(c, precision);
    std::printf("%s, %s: loss %.17g vs %.17g; worst gradient difference %.3g (%s)\n", to_string(precision).c_str(),
                c.at("name").get<std::string>().c_str(), r.loss, r.ref_loss, r.worst, r.worst_param.c_str());
    EXPECT_NEAR(r.loss, r.ref_loss, tol * std::abs(r.ref_loss)) << c.at("name");
    EXPECT_LT(r.worst, tol) << c.at("name") << ": gradient of " << r.worst_param;
  }
}

TEST(TransformerReference, DoubleMatchesPyTorchAutograd) { expect_matches_reference(Precision::kDouble, 1e-12); }

TEST(TransformerReference, FloatMatchesPyTorchAutograd) { expect_matches_reference(Precision::kFloat, 1e-5); }

// The comparison can fail: the reference's gradients against the model's
// with one weight perturbed must differ by far more than the tolerance.
TEST(TransformerReference, DetectsAPerturbedWeight) {
  nlohmann::json ref = load_reference();
  auto& c = ref.at("cases")[0];
  auto& v = c.at("parameters").at("block0.Wv").at("value");
  v[0] = v[0].get<double>() + 1e-3;
  const Result r = run_case(c, Precision::kDouble);
  EXPECT_GT(r.worst, 1e-6) << "a change of 1e-3 in one weight went unnoticed";
}

}  // namespace
}  // namespace nn
}  // namespace potts
