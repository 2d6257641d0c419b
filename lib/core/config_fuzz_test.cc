// Mutation fuzzing of the configuration reader (lib/core/config): a config
// using every accessor, mutated structurally (nasty values, deleted and
// unknown keys) and byte by byte. Every case must load and validate or throw
// a StageError naming the file.
#include <gtest/gtest.h>

#include <iostream>

#include "lib/core/config.h"
#include "tests/util/config_accessors.h"
#include "tests/util/fuzz.h"

namespace potts {
namespace {

const char* kOrigin = "fuzz/config.json";

const nlohmann::json kBase = nlohmann::json::parse(R"({
  "_comment": "every accessor of Config",
  "rate": 0.25, "fraction": 0.5, "count": 12, "flag": true, "label": "quick",
  "mode": "fixed", "grid": [0.5, 1.0, 2.0], "seeds": [1, 2, 3], "names": ["a", "b"],
  "section": {"beta": 1.5, "steps": [10, 20], "inner": {"on": false}}
})");

// Reads the config as a stage would, keys in a fixed order.
void read_all(Config c) {
  testing_util::read_every_accessor(c);
  if (c.has("section")) {
    Config s = c.section("section");
    s.number("beta");
    s.integers("steps", 1, 100);
    Config in = s.section("inner");
    in.boolean("on");
    in.finish();
    s.finish();
  }
  c.finish();
}

TEST(ConfigFuzz, BaseConfigIsValid) { read_all(Config::parse(kBase.dump(), kOrigin)); }

TEST(ConfigFuzz, MutatedConfigsFailCleanly) {
  fuzz::Mutator mut(20240601);
  fuzz::Tally t{"config"};
  const std::string base_text = kBase.dump(2);
  const long cases = fuzz::case_budget();
  for (long i = 0; i < cases; ++i) {
    // Two thirds structural (valid JSON, wrong content), one third bytes.
    const std::string text = (i % 3 == 2) ? mut.bytes(base_text) : mut.json(kBase).dump();
    t.run([&] { read_all(Config::parse(text, kOrigin)); }, kOrigin, text);
  }
  std::cout << t.summary() << std::endl;
  RecordProperty("config_cases", int(t.cases));
  EXPECT_GE(t.cases, cases);
  EXPECT_GT(t.clear_errors, t.cases / 2) << "mutations should mostly be rejected";
  EXPECT_TRUE(t.findings.empty()) << t.findings.size() << " findings, first: " << t.findings.front();
}

}  // namespace
}  // namespace potts
