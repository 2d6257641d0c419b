// Writes the AdamW reference problem (lib/estimators/adamw_reference_problem.h)
// as JSON on standard output, for bench/estimators/adamw_reference.py:
//   tools/bazel run //bench/estimators:adamw_reference_inputs > /tmp/in.json
//   /usr/bin/python3 bench/estimators/adamw_reference.py /tmp/in.json \
//     > lib/estimators/testdata/adamw_reference.json
#include <iostream>

#include "lib/estimators/adamw_reference_problem.h"

int main() {
  std::cout << potts::adamw_reference::to_json(potts::adamw_reference::make_problem()).dump() << "\n";
  return 0;
}
