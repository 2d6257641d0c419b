// Mutation fuzzing of a stage's command line (stages/runtime/stage
// parse_stage_args): flags deleted, repeated, swapped, replaced by nasty
// tokens or byte-edited. Every case must parse or throw a StageError.
#include <gtest/gtest.h>

#include <iostream>

#include "tests/util/fuzz.h"
#include "stages/runtime/stage.h"

namespace potts {
namespace {

const std::vector<std::string> kBase = {"stage",
                                        "--config",
                                        "c.json",
                                        "--seed",
                                        "42",
                                        "--in",
                                        "sample/train.h5=/x/train.h5",
                                        "--in",
                                        "model/summary.json=/x/s.json",
                                        "--out",
                                        "summary.json=/o/s.json",
                                        "--provenance",
                                        "/o/p.json",
                                        "--status",
                                        "/s/volatile",
                                        "--target",
                                        "//stages/x:y"};

const std::vector<std::string> kTokens = {
    "--help", "-h",   "--seed",    "--in", "--out", "--config", "--unknown", "-1",       "18446744073709551616",
    "1e3",    "0x10", "",          "=",    "k=",    "=p",       "k==p",      "--seed=7", "--in=a=b",
    "--",     "-",    "--config=", "\xff"};

std::vector<std::string> mutate(fuzz::Mutator& mut, std::vector<std::string> a) {
  const int edits = 1 + int(mut.below(3));
  for (int e = 0; e < edits; ++e) {
    const std::size_t i = 1 + mut.below(a.size() > 1 ? a.size() - 1 : 1);
    switch (mut.below(5)) {
      case 0:
        if (i < a.size()) a.erase(a.begin() + long(i));
        break;
      case 1:
        if (i < a.size()) a.insert(a.begin() + long(i), a[i]);
        break;
      case 2:
        a.insert(a.begin() + long(std::min(i, a.size())), kTokens[mut.below(kTokens.size())]);
        break;
      case 3:
        if (i < a.size()) a[i] = kTokens[mut.below(kTokens.size())];
        break;
      default:
        if (i < a.size()) a[i] = mut.bytes(a[i]);
    }
  }
  return a;
}

TEST(StageArgsFuzz, BaseParses) {
  std::vector<const char*> argv;
  for (const auto& s : kBase) argv.push_back(s.c_str());
  const StageArgs a = parse_stage_args("stage", "fuzz", int(argv.size()), argv.data());
  EXPECT_EQ(a.seed, 42u);
  EXPECT_EQ(a.inputs.size(), 2u);
  EXPECT_EQ(a.outputs.at("summary.json"), "/o/s.json");
}

TEST(StageArgsFuzz, MutatedCommandLinesFailCleanly) {
  fuzz::Mutator mut(23);
  fuzz::Tally t{"flags"};
  const long cases = fuzz::case_budget();
  for (long i = 0; i < cases; ++i) {
    const auto args = mutate(mut, kBase);
    std::vector<const char*> argv;
    std::string shown;
    for (const auto& s : args) {
      argv.push_back(s.c_str());
      shown += "[" + s + "] ";
    }
    argv.push_back(nullptr);
    t.run([&] { parse_stage_args("stage", "fuzz", int(args.size()), argv.data()); }, "", shown);
  }
  std::cout << t.summary() << std::endl;
  RecordProperty("flags_cases", int(t.cases));
  EXPECT_GE(t.cases, cases);
  EXPECT_GT(t.clear_errors, 0);
  EXPECT_TRUE(t.findings.empty()) << t.findings.front();
}

}  // namespace
}  // namespace potts
