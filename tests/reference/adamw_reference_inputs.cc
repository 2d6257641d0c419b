// Writes an AdamW reference problem (tests/reference/adamw_reference_problem.h)
// as JSON on standard output, for tests/reference/adamw_reference.py: the
// factored coupling model without an argument, the observation's factored
// attention with "attention", the same under its pinned code's objective
// (eq. O1s, no fields, full batches) with "pinned".
//   tools/bazel run //tests/reference:adamw_reference_inputs > /tmp/in.json
//   /usr/bin/python3 tests/reference/adamw_reference.py /tmp/in.json \
//     > tests/reference/testdata/adamw_reference.json
//   tools/bazel run //tests/reference:adamw_reference_inputs -- attention > /tmp/in.json
//   /usr/bin/python3 tests/reference/adamw_reference.py /tmp/in.json \
//     > tests/reference/testdata/adamw_reference_attention.json
//   tools/bazel run //tests/reference:adamw_reference_inputs -- pinned > /tmp/in.json
//   /usr/bin/python3 tests/reference/adamw_reference.py /tmp/in.json \
//     > tests/reference/testdata/adamw_reference_pinned.json
#include <iostream>
#include <string>

#include "tests/reference/adamw_reference_problem.h"

int main(int argc, char** argv) {
  namespace ref = potts::adamw_reference;
  const std::string model = argc > 1 ? argv[1] : "factored";
  if (model == "factored") {
    std::cout << ref::to_json(ref::make_problem()).dump() << "\n";
  } else if (model == "attention") {
    std::cout << ref::to_json(ref::make_attention_problem()).dump() << "\n";
  } else if (model == "pinned") {
    std::cout << ref::to_json(ref::make_pinned_attention_problem()).dump() << "\n";
  } else {
    std::cerr << "adamw_reference_inputs: unknown model '" << model << "': expected factored, attention or pinned\n";
    return 2;
  }
  return 0;
}
