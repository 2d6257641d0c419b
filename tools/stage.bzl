"""The `stage` rule: one node of the paper's DAG.

A stage runs a //stages binary with a JSON configuration (a label: editing it
reruns exactly this stage and what depends on it), a seed, the files of the
upstream stages it consumes, and declared outputs. Its outputs live under
bazel-bin/<package>/<name>/ and always include provenance.json.

Upstream files reach the binary as `--in <key>/<basename>=<path>`, where
<key> is the string given for that upstream target in `inputs`. An upstream
stage's provenance.json is not among them: a record holds run-to-run facts
(times, threads, the code version), so taking it as an input would rerun
every stage below one that reran with the same outputs. The record a stage
writes names each input by path and SHA-256, which links it to the record of
the stage that made it (lib/provenance/graph.h). Only the presentation
stages, the figures and the paper (`reads_records`), are given the upstream
records, to name the stages their numbers come from.

Every stage's StageRecordInfo carries its own record and every record
upstream of it, for the collector of results/.

A `threaded` stage also gets `--threads K`, K from the build setting
//tools:stage_threads (default 1; `--//tools:stage_threads=8` on a farm whose
actions have 8 cores): the threads of its kernels, which change no bit of its
results (lib/core/parallel.h).
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_test")
load("//tools:test_pch.bzl", "test_pch_attrs")

StageThreadsInfo = provider(doc = "the value of //tools:stage_threads", fields = ["value"])

StageRecordInfo = provider(
    doc = "The provenance records of a stage and of every stage upstream of it.",
    fields = {"records": "depset of provenance.json files (each File's owner is its stage)"},
)

def _is_record(f):
    return f.basename == "provenance.json"

def _stage_threads_impl(ctx):
    if ctx.build_setting_value < 1:
        fail("--//tools:stage_threads=%d: expected a thread count of at least 1" % ctx.build_setting_value)
    return StageThreadsInfo(value = ctx.build_setting_value)

stage_threads_setting = rule(
    implementation = _stage_threads_impl,
    build_setting = config.int(flag = True),
    doc = "The thread count of threaded stages (a command-line build setting).",
)

def _stage_impl(ctx):
    outs = {k: ctx.actions.declare_file(ctx.label.name + "/" + k) for k in ctx.attr.outs}
    prov = ctx.actions.declare_file(ctx.label.name + "/provenance.json")
    args = ctx.actions.args()
    args.add("--target", str(ctx.label))
    args.add("--config", ctx.file.config)
    args.add("--seed", str(ctx.attr.seed))
    # The volatile status file carries the code version; Bazel does not rerun
    # actions when only volatile status changes, so stages stay cached
    # locally. A remote or disk cache keys on every input's digest, and that
    # file changes with every build (BUILD_TIMESTAMP) and commit: cacheable
    # builds (--define=stage_code_version=off, set by --config=shared-cache
    # and --config=remote) leave it out.
    inputs = [ctx.file.config]
    if ctx.attr.record_code_version:
        args.add("--status", ctx.version_file)
        inputs.append(ctx.version_file)
    skip = {k: True for k in ctx.attr.skip_inputs}
    for dep, key in ctx.attr.inputs.items():
        for f in dep.files.to_list():
            if _is_record(f) and not ctx.attr.reads_records:
                continue
            if "%s/%s" % (key, f.basename) in skip:
                continue
            args.add("--in", "%s/%s=%s" % (key, f.basename, f.path))
            inputs.append(f)
    for k in ctx.attr.outs:
        args.add("--out", "%s=%s" % (k, outs[k].path))
    args.add("--provenance", prov)
    if ctx.attr.threaded:
        args.add("--threads", str(ctx.attr.threads or ctx.attr._threads[StageThreadsInfo].value))
    ctx.actions.run(
        executable = ctx.executable.tool,
        arguments = [args],
        inputs = inputs,
        outputs = list(outs.values()) + [prov],
        mnemonic = "Stage",
        progress_message = "Stage %s" % ctx.label,
        env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    )
    files = list(outs.values()) + [prov]
    records = depset([prov], transitive = [
        dep[StageRecordInfo].records
        for dep in ctx.attr.inputs
        if StageRecordInfo in dep
    ])
    # Runfiles too, so tests can read stage outputs through `data = [...]`.
    return [
        DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files)),
        StageRecordInfo(records = records),
    ]

_stage = rule(
    implementation = _stage_impl,
    attrs = {
        # The target configuration, not the exec one: the build has one
        # platform and the host flags mirror the target's (.bazelrc), so the
        # binary's bytes are the same, and the libraries it links compile
        # once for it and for the tests instead of once per configuration.
        "tool": attr.label(executable = True, cfg = "target", mandatory = True, doc = "the //stages binary"),
        "config": attr.label(allow_single_file = [".json"], mandatory = True),
        "seed": attr.int(mandatory = True),
        "inputs": attr.label_keyed_string_dict(allow_files = True, doc = "upstream stage (or source file) -> key under which its files are passed"),
        "outs": attr.string_list(mandatory = True, doc = "output file names, e.g. summary.json"),
        "skip_inputs": attr.string_list(
            doc = "upstream files the stage never reads, as key/basename: left out of its action, so that a " +
                  "rerun needs only what it reads (a refresh of results/, which keeps no fit's params.h5)",
        ),
        "record_code_version": attr.bool(default = True, doc = "pass the volatile workspace status (git commit)"),
        "threaded": attr.bool(default = False, doc = "pass --threads from //tools:stage_threads"),
        "threads": attr.int(
            default = 0,
            doc = "a threaded stage's --threads where not 0, in place of //tools:stage_threads (the contacts " +
                  "front end's --threads, which as an attribute leaves the build's options and so Bazel's " +
                  "analysis cache as they are)",
        ),
        "reads_records": attr.bool(
            default = False,
            doc = "also pass the upstream stages' provenance.json (the figures and the paper, which name their sources)",
        ),
        "_threads": attr.label(default = "//tools:stage_threads"),
    },
    doc = "Runs one seeded, deterministic, cached stage of the pipeline.",
)

def stage(name, tags = [], **kwargs):
    """A pipeline stage. Targets named `paper*` are paper scale: they are
    tagged "manual", so `bazel test //...` (CI) never builds them; //paper:all
    depends on them explicitly and builds them."""
    if name.startswith("paper") and "manual" not in tags:
        tags = tags + ["manual"]
    _stage(
        name = name,
        tags = tags,
        record_code_version = select({
            "//tools:stage_code_version_off": False,
            "//conditions:default": True,
        }),
        **kwargs
    )

def stage_binary(name, body, deps, main = "main.cc"):
    """A stage binary and its body: the library `body` (<body>.cc, <body>.h:
    run_<stage>(Stage&)) with `deps`, and the binary `name` from `main`, a
    main of a few lines that hands the body to run_stage."""
    native.cc_library(
        name = body,
        srcs = [body + ".cc"],
        hdrs = [body + ".h"],
        deps = deps,
    )
    cc_binary(
        name = name,
        srcs = [main],
        deps = [":" + body],
    )

def science_test(name, data, srcs = None, deps = [], pipeline = True, **kwargs):
    """A test of a stage's science on stage outputs (`data`): on the quick
    DAG's outputs (`pipeline`: left out of the sanitizer runs, which would
    rerun every stage sanitized; docs/testing.md) or on the committed
    results/. From `name`.cc unless `srcs` says; links GoogleTest, JSON and
    the project's readers, with the tests' precompiled header unless
    pch = False (tools/test_pch.bzl)."""
    kwargs["size"] = kwargs.pop("size", "small")
    kwargs["srcs"] = srcs if srcs != None else [name + ".cc"]
    kwargs["data"] = data
    kwargs["tags"] = kwargs.pop("tags", []) + (["pipeline"] if pipeline else [])
    cc_test(name = name, **test_pch_attrs(kwargs.pop("pch", True), kwargs.pop("copts", []), depset(deps + [
        "//lib/core:io",
        "//third_party:gtest_main",
        "//third_party:nlohmann_json",
    ]).to_list(), kwargs))
