"""config_key_test: a BUILD constant and a config key that must agree.

Some numbers live both in a BUILD file (how many chunk or point actions it
creates) and in a stage config (what the stage expects): the stage checks at
run time, but only after the paper-scale sweep has run. This test checks them
in `bazel test //...`, before any stage runs.

    config_key_test(
        name = "chunks_test",
        expect = {"configs/quick.json": {"chunks": 2}},
    )
"""

load("@rules_cc//cc:defs.bzl", "cc_test")

def config_key_test(name, expect, **kwargs):
    args = []
    data = []
    for f, keys in expect.items():
        data.append(f)
        for k, v in keys.items():
            args += ["$(rootpath %s)" % f, k, str(v)]
    cc_test(
        name = name,
        size = "small",
        srcs = ["//tools:config_key_test.cc"],
        args = args,
        data = data,
        deps = ["//third_party:nlohmann_json"],
        **kwargs
    )
