"""The project's usual C++ units, declared by name.

`cc_unit(name)`: the library `name` from `name.cc` and `name.h`.
`cc_unit_test(name)`: the test `name` from `name.cc`, small unless said,
with GoogleTest's main. Either takes cc_library's or cc_test's other
attributes unchanged (deps, copts, data, ...), so that a unit's compile
and link are exactly those of the rule written out.
"""

load("@rules_cc//cc:defs.bzl", "cc_library", "cc_test")

def cc_unit(name, **kwargs):
    """cc_library `name` from `name`.cc and `name`.h (srcs, hdrs override)."""
    kwargs.setdefault("srcs", [name + ".cc"])
    kwargs.setdefault("hdrs", [name + ".h"])
    cc_library(name = name, **kwargs)

def cc_unit_test(name, deps = [], **kwargs):
    """cc_test `name` from `name`.cc (srcs overrides), small unless said, with
    GoogleTest's main after `deps`."""
    kwargs.setdefault("srcs", [name + ".cc"])
    kwargs.setdefault("size", "small")
    cc_test(name = name, deps = deps + ["//third_party:gtest_main"], **kwargs)
