"""The project's usual units (C++ and shell), declared by name.

`cc_unit(name)`: the library `name` from `name.cc` and `name.h`.
`cc_unit_test(name)`: the test `name` from `name.cc`, small unless said,
with GoogleTest's main and the tests' precompiled header (tools/test_pch.bzl;
pch = False for a source compiled at another level than -O0).
`cc_main(name)`: the binary `name` from `name.cc` (a tool or a benchmark).
`sh_unit_test(name)`: the shell test `name` from `name.sh`, small unless
said, given the paths of its `tools`.
Each takes its rule's other attributes unchanged (deps, copts, data, ...),
so that a unit's compile and link are exactly those of the rule written out.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")
load("//tools:test_pch.bzl", "test_pch_attrs")

def cc_unit(name, **kwargs):
    """cc_library `name` from `name`.cc and `name`.h (srcs, hdrs override)."""
    kwargs.setdefault("srcs", [name + ".cc"])
    kwargs.setdefault("hdrs", [name + ".h"])
    cc_library(name = name, **kwargs)

def cc_unit_test(name, deps = [], copts = [], pch = True, **kwargs):
    """cc_test `name` from `name`.cc (srcs overrides), small unless said, with
    GoogleTest's main after `deps`, and the precompiled header unless `pch`
    is False."""
    kwargs.setdefault("srcs", [name + ".cc"])
    kwargs.setdefault("size", "small")
    cc_test(name = name, **test_pch_attrs(pch, copts, deps + ["//third_party:gtest_main"], kwargs))

def cc_main(name, **kwargs):
    """cc_binary `name` from `name`.cc (srcs overrides)."""
    kwargs.setdefault("srcs", [name + ".cc"])
    cc_binary(name = name, **kwargs)

def sh_unit_test(name, tools = [], args = [], data = [], **kwargs):
    """sh_test `name` from `name`.sh, small unless said: each label of `tools`
    is in its data and its path an argument, in order, before `args`."""
    native.sh_test(
        name = name,
        srcs = [name + ".sh"],
        size = kwargs.pop("size", "small"),
        args = ["$(rootpath %s)" % t for t in tools] + args,
        data = tools + data,
        **kwargs
    )
