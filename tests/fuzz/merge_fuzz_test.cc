// The CSV and JSON inputs of the merge stages, fuzzed through each merge's
// own main: a small valid set of upstream files (tests/fuzz/corpus/merge_*/,
// from the quick pipeline) with one text file (or the config) mutated per case,
// structurally for JSON, byte by byte for CSV and JSON. Every case must end
// in success or the stage's one-line error.
#include <gtest/gtest.h>

#include "tests/fuzz/harness.h"

int fuzz_main_perturb_merge(int, char**);
int fuzz_main_train_merge(int, char**);
int fuzz_main_potts_alpha_merge(int, char**);
int fuzz_main_gaussian_merge(int, char**);
int fuzz_main_diversity_merge(int, char**);

namespace potts::fuzz {
namespace {

void fuzz_merge(const std::string& corpus, const std::string& stage, MainFn main_fn,
                const std::vector<std::string>& outputs, std::uint64_t seed) {
  unpinned_numerics();
  const std::string dir = corpus_dir(corpus);
  std::map<std::string, std::string> files = input_files(dir);
  ASSERT_FALSE(files.empty()) << dir;
  const std::string config = read_file(dir + "/config.json");
  const std::string work = scratch_dir(corpus);
  std::vector<std::string> args = {stage, "--config",     work + "/config.json",        "--seed",
                                   "1",   "--provenance", work + "/out/provenance.json"};
  for (const auto& [key, text] : files) {
    write_file(work + "/in/" + key, text);
    args.push_back("--in");
    args.push_back(key + "=" + work + "/in/" + key);
  }
  fs::create_directories(work + "/out");
  for (const auto& o : outputs) {
    args.push_back("--out");
    args.push_back(o + "=" + work + "/out/" + o);
  }
  write_file(work + "/config.json", config);
  std::string err;
  ASSERT_EQ(run_main(main_fn, args, err), 0) << "the unmutated corpus must merge: " << err;

  // Text inputs are mutated; HDF5 inputs (the train runs' params.h5) stay
  // intact here: //tests/fuzz:hdf5_readers_fuzz_test fuzzes their reader.
  std::vector<std::string> names = {"config.json"};
  for (const auto& f : files)
    if (f.first.size() < 3 || f.first.compare(f.first.size() - 3, 3, ".h5") != 0) names.push_back(f.first);
  Mutator mut(seed);
  Tally t{"merge_" + corpus.substr(6)};
  const long cases = case_budget();
  for (long i = 0; i < cases; ++i) {
    const std::string& name = names[mut.below(names.size())];
    const std::string path = name == "config.json" ? work + "/config.json" : work + "/in/" + name;
    const std::string original = name == "config.json" ? config : files[name];
    const std::string text = mutate_text(mut, name, original);
    write_file(path, text);
    t.run([&] { stage_case(main_fn, args); }, "", name + ":\n" + text);
    write_file(path, original);
  }
  fs::remove_all(work);
  std::cout << t.summary() << std::endl;
  ::testing::Test::RecordProperty("cases_" + corpus, int(t.cases));
  EXPECT_GE(t.cases, cases);
  EXPECT_GT(t.ok, 0);
  EXPECT_GT(t.clear_errors, 0);
  EXPECT_TRUE(t.findings.empty()) << t.findings.size() << " findings; first: " << t.findings.front();
}

TEST(MergeFuzz, Perturb) {
  fuzz_merge("merge_perturb", "perturb_merge", fuzz_main_perturb_merge,
             {"perturb.csv", "perturb_summary.csv", "curves.csv", "summary.json"}, 51);
}
TEST(MergeFuzz, Train) {
  fuzz_merge("merge_train", "train_merge", fuzz_main_train_merge, {"seeds.csv", "summary.json"}, 52);
}
TEST(MergeFuzz, PottsAlpha) {
  fuzz_merge("merge_potts_alpha", "potts_alpha_merge", fuzz_main_potts_alpha_merge,
             {"potts_alpha.csv", "realisations.csv", "summary.json"}, 53);
}
TEST(MergeFuzz, Gaussian) {
  fuzz_merge("merge_gaussian", "gaussian_merge", fuzz_main_gaussian_merge,
             {"realisations.csv", "simulation.csv", "summary.json"}, 54);
}
TEST(MergeFuzz, Diversity) {
  fuzz_merge("merge_diversity", "diversity_merge", fuzz_main_diversity_merge,
             {"diversity.csv", "diversity_degenerate.csv", "diversity_identity.csv", "summary.json", "validation.csv"},
             55);
}

}  // namespace
}  // namespace potts::fuzz
