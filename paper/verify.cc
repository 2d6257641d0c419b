// //paper:verify, the rebuilder: re-executes stages of results/ outside
// every cache and compares their outputs byte for byte with the SHA-256s of
// their provenance records, which MANIFEST.json locks (lib/provenance/verify.h).
//
//   tools/bazel run //paper:verify -- --stage //stages/train:paper_h70_factored_s1
//   tools/bazel run //paper:verify -- --sample 10 --seed 7
//   tools/bazel run //paper:verify -- --all
//
// It writes nothing into results/: stages run in a scratch directory, tools
// build in the rebuilder's own output base. Exit status 0: every stage
// reproduced; 1: a stage differs or failed; 3: a stage is stale (the tree's
// code or configuration is not the record's); 2: usage.
#include <cstdlib>
#include <iostream>

#include "lib/provenance/verify.h"
#include "paper/cli.h"
#include "paper/rebuilder_cli.h"

int main(int argc, char** argv) {
  using namespace potts::provenance;
  VerifyOptions o;
  CLI::App app{
      "Re-executes stages of a results tree with no cache and compares every output byte for byte with "
      "its provenance record (locked by MANIFEST.json). Writes nothing into the results tree.",
      "verify"};
  app.add_option("--stage", o.stages, "stages to verify: targets (//stages/train:quick) or record names (train.quick)");
  app.add_option("--sample", o.sample, "verify K stages chosen by --seed (stated in the output)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "the seed of --sample's choice");
  app.add_flag("--all", o.all, "verify every stage (costs what the DAG cost: see the first lines)");
  potts::add_rebuilder_options(
      app, o, "potts_attention_verify",
      "; its compiles use its own disk cache beside it (or --compile-cache), never a remote cache",
      "; only what verify created is removed");
  app.add_option(
      "--compile-cache", o.disk_cache,
      "compile the tools in this disk cache instead of its own beside the output base: one that only "
      "builds you trust wrote, never one a shared or remote cache filled (compiles only; stages always run)");
  app.add_flag("--with-inputs", o.with_inputs,
               "rebuild every upstream stage too (default: inputs that results/ holds with their recorded SHA-256 "
               "are accepted by hash)");
  app.add_flag("--plan", o.plan_only, "print the chosen stages and what their records cost; build and run nothing");
  // Checked once the arguments are parsed (after --help); a ValidationError
  // is reported as any bad argument.
  app.callback([&] {
    const int modes = (o.all ? 1 : 0) + (o.sample >= 0 ? 1 : 0) + (o.stages.empty() ? 0 : 1);
    if (modes != 1)
      throw CLI::ValidationError("selection", "give exactly one of --stage NAME..., --sample K --seed S, --all");
    if (o.sample >= 0 && app.count("--seed") == 0) throw CLI::ValidationError("--sample", "needs --seed S");
  });
  if (const int rc = potts::parse_arguments(app, argc, argv); rc >= 0) return rc;
  potts::finish_rebuilder_options(o, "potts_attention_verify");
  o.own_compile_cache = o.disk_cache.empty();
  try {
    return run_verify(o);
  } catch (const std::exception& e) {
    std::cerr << "verify: error: " << e.what() << "\n";
    return 1;
  }
}
