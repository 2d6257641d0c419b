// The fuzzers' configuration document read through every top-level accessor
// of Config (lib/core/config.h), keys in a fixed order: rate, fraction,
// count, flag, label, mode, grid, seeds, names. Shared by the committed-budget
// fuzz test (lib/core:config_fuzz_test) and the libFuzzer harness
// (tests/fuzz/libfuzzer/readers.cc, tools/fuzz).
#pragma once
#include "lib/core/config.h"

namespace potts::testing_util {

inline void read_every_accessor(Config& c) {
  c.number("rate", 0.0, 1.0);
  c.number_open("fraction", 0.0, 1.0);
  c.integer("count", 1, 1000);
  c.boolean("flag");
  c.string("label");
  c.choice("mode", {"fixed", "calibrate"});
  c.numbers("grid", 0.0, 100.0);
  c.integers("seeds", 0, 1 << 20);
  c.strings("names");
}

}  // namespace potts::testing_util
