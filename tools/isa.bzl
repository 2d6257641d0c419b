"""Instruction-set levels (lib/core/isa.h) in the build.

`isa_cloned_library`: a library whose kernels are cloned per level, its
builds pinned to each level below the CPU's own, and its tests run against
every build, so that each clone is tested bit for bit.

`isa_pinned_binary(name, binary, level)`: `binary` built with every kernel
pinned to one level (level "avx2": each kernel's AVX2 clone, as on an AVX2
CPU without AVX-512; "native": the default binary's bytes), for benchmarks
that time each level on one machine. A pinned binary's bytes differ from
the default build's, so its outputs never go to results/; the kernels'
bits are the same at every level (their tests), so its outputs are the same
bytes.
"""

load("@rules_cc//cc:defs.bzl", "cc_library", "cc_test")
load("//tools:test_pch.bzl", "test_pch_attrs")

_GTEST_MAIN = "//third_party:gtest_main"

# The levels a test pins, below the CPU's own (which the unpinned build
# runs): lib/core/isa.h's POTTS_ISA_PIN values.
PINNED_LEVELS = {"baseline": 0, "avx2": 1}

def isa_cloned_library(name, tests = [], pinned = True, **kwargs):
    """cc_library `name` (kwargs as cc_library's; srcs and hdrs by default
    `name`.cc and `name`.h, as cc_unit's) and, for each level of
    PINNED_LEVELS, `name`_<level> (testonly, private): the same sources with
    POTTS_ISA_PIN, never linked together with `name`.

    Each entry of `tests` is a dict with "name" and optionally "srcs" (by
    default <test name>.cc), "deps", "args", "pinned_args" (the pinned runs'
    arguments, by default "args"), "copts", "data", "size", "gtest_main"
    (False: the test has its own main), "pch" (False: without the tests'
    precompiled header, tools/test_pch.bzl): a cc_test against `name`, and
    <test name>_<level> against each pinned build (compiled with the same
    define, so that it can skip where the CPU lacks the level:
    isa_pin_runs_here()), tagged "pinned" (the bits of a clone are the
    compiler's, not the sanitizers' business: .ci/run's sanitizer tier
    leaves them out).

    pinned = False: a library whose tests run every level themselves (through
    an entry point that takes the level) needs no pinned builds.
    """
    kwargs.setdefault("srcs", [name + ".cc"])
    kwargs.setdefault("hdrs", [name + ".h"])
    cc_library(name = name, **kwargs)
    levels = PINNED_LEVELS if pinned else {}
    pinned_kwargs = {k: v for k, v in kwargs.items() if k not in ["local_defines", "testonly", "visibility"]}
    for level, pin in levels.items():
        cc_library(
            name = "%s_%s" % (name, level),
            local_defines = kwargs.get("local_defines", []) + ["POTTS_ISA_PIN=%d" % pin],
            testonly = True,
            visibility = ["//visibility:private"],
            **pinned_kwargs
        )
    for t in tests:
        for suffix, lib, defines, args, tags in [("", name, [], t.get("args", []), [])] + [
            ("_" + level, "%s_%s" % (name, level), ["POTTS_ISA_PIN=%d" % pin], t.get("pinned_args", t.get("args", [])),
             ["pinned"])
            for level, pin in levels.items()
        ]:
            cc_test(name = t["name"] + suffix, **test_pch_attrs(
                t.get("pch", True),
                t.get("copts", []),
                [":" + lib] + t.get("deps", []) + ([_GTEST_MAIN] if t.get("gtest_main", True) else []),
                {
                    "size": t.get("size", "small"),
                    "srcs": t.get("srcs", [t["name"] + ".cc"]),
                    "args": args,
                    "data": t.get("data", []),
                    "local_defines": defines,
                    "tags": tags,
                },
            ))

# A pinned binary's defines: lib/core/isa.h's POTTS_ISA_PIN for every compile.
_LEVEL_COPTS = {
    "native": [],
    "avx2": ["-DPOTTS_ISA_PIN=1"],
}

def _pin_impl(settings, attr):
    return {"//command_line_option:copt": settings["//command_line_option:copt"] + _LEVEL_COPTS[attr.level]}

_pin = transition(
    implementation = _pin_impl,
    inputs = ["//command_line_option:copt"],
    outputs = ["//command_line_option:copt"],
)

def _isa_pinned_binary_impl(ctx):
    src = ctx.attr.binary[0][DefaultInfo].files_to_run.executable
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = src, is_executable = True)
    return [DefaultInfo(executable = out, files = depset([out]), runfiles = ctx.runfiles(files = [src]))]

isa_pinned_binary = rule(
    implementation = _isa_pinned_binary_impl,
    executable = True,
    attrs = {
        "binary": attr.label(cfg = _pin, executable = True, mandatory = True),
        "level": attr.string(values = _LEVEL_COPTS.keys(), mandatory = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)

def isa_pinned_binaries(binaries):
    """For each "NAME": "LABEL" of `binaries`, NAME_avx2 and NAME_native.

    Tagged manual: each is the binary's dependency tree compiled once more,
    which `bazel test //...` (CI) has no use for; benchmarks build them.
    """
    for name, binary in binaries.items():
        for level in ["avx2", "native"]:
            isa_pinned_binary(
                name = "%s_%s" % (name, level),
                binary = binary,
                level = level,
                tags = ["manual"],
            )
