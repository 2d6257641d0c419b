"""The fuzz tests of the stages' bodies (stage_mains.cc) on a committed corpus."""

load("//tools:cc.bzl", "cc_unit_test")

def stage_fuzz_test(name, corpus, shard_count, deps = [], pch = True):
    """cc_unit_test `name` (medium, tagged "fuzz") of the stage bodies through
    the harness, on corpus/<corpus>_*/, one shard per suite; `pch` as
    cc_unit_test's."""
    cc_unit_test(
        name = name,
        size = "medium",
        tags = ["fuzz"],
        data = native.glob(["corpus/%s_*/**" % corpus]),
        shard_count = shard_count,
        pch = pch,
        deps = [
            ":harness",
            ":stage_mains",
        ] + deps,
    )
