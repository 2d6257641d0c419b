"""A precompiled header of the libraries every test parses.

Parsing GoogleTest, Armadillo and nlohmann's JSON is most of a test
source's compile (about 2, 4 and 2.5 s of each, measured on 2 cores), and
the tests compile it once per source and per configuration. `test_pch`
compiles `header` once per configuration, as GCC's `.gch`, with the flags
of a test source: the configuration's --copt and --cxxopt, the toolchain's
features, its dependencies' defines and include paths, and -O0 (the level
.bazelrc's --per_file_copt gives test sources). A test that lists it in
`deps` and passes `-include tools/test_pch/test_pch.h` (TEST_PCH_COPTS)
then loads the `.gch` instead of parsing the header.

GCC loads a `.gch` only where every flag that matters matches the
compile; elsewhere (a test source compiled at another level) it reads the
header's text, so the result is the same either way. Only test sources use
it: no stage binary's bytes depend on it.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

TEST_PCH = "//tools:test_pch"

# The copts of a test that uses TEST_PCH: the header is found on the quote
# include path under bazel-bin, beside its .gch; -Winvalid-pch says where
# GCC found the .gch and could not use it.
TEST_PCH_COPTS = ["-include", "tools/test_pch/test_pch.h", "-Winvalid-pch"]

def test_pch_attrs(pch, copts, deps, kwargs):
    """A test's rule attributes `kwargs` with `copts` and `deps`, and with
    TEST_PCH if `pch`."""
    attrs = dict(kwargs)
    attrs["copts"] = copts + (TEST_PCH_COPTS if pch else [])
    attrs["deps"] = deps + ([TEST_PCH] if pch else [])
    return attrs

def _test_pch_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features + [ctx.var["COMPILATION_MODE"]],
        unsupported_features = ctx.disabled_features,
    )
    deps = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps]).compilation_context
    header = ctx.actions.declare_file("%s/%s.h" % (ctx.label.name, ctx.label.name))
    ctx.actions.symlink(output = header, target_file = ctx.file.header)
    gch = ctx.actions.declare_file(header.basename + ".gch", sibling = header)
    variables = cc_common.create_compile_variables(
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + ["-O0"],
        source_file = header.path,
        output_file = gch.path,
        preprocessor_defines = depset(transitive = [deps.defines, deps.local_defines]),
        include_directories = deps.includes,
        quote_include_directories = deps.quote_includes,
        system_include_directories = deps.system_includes,
        use_pic = False,
    )
    ctx.actions.run(
        executable = cc_common.get_tool_for_action(
            feature_configuration = features,
            action_name = ACTION_NAMES.cpp_compile,
        ),
        arguments = ["-x", "c++-header"] + cc_common.get_memory_inefficient_command_line(
            feature_configuration = features,
            action_name = ACTION_NAMES.cpp_compile,
            variables = variables,
        ),
        env = cc_common.get_environment_variables(
            feature_configuration = features,
            action_name = ACTION_NAMES.cpp_compile,
            variables = variables,
        ),
        inputs = depset([header], transitive = [deps.headers, cc_toolchain.all_files]),
        outputs = [gch],
        mnemonic = "TestPch",
        progress_message = "Precompiling %s" % ctx.file.header.short_path,
    )
    own = cc_common.create_compilation_context(headers = depset([header, gch]))
    return [
        DefaultInfo(files = depset([header, gch])),
        cc_common.merge_cc_infos(
            direct_cc_infos = [CcInfo(compilation_context = own)],
            cc_infos = [d[CcInfo] for d in ctx.attr.deps],
        ),
    ]

test_pch = rule(
    implementation = _test_pch_impl,
    attrs = {
        "header": attr.label(allow_single_file = [".h"], mandatory = True),
        "deps": attr.label_list(providers = [CcInfo]),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)
