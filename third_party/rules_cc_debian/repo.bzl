"""Repository rules that let Bazel 4.2.3 build offline from Debian's packages.

debian_rules_cc copies Debian's rules_cc 0.0.4 (/usr/share/bazel/rules/cc) and
patches the two files that load `use_cpp_toolchain`, a symbol Bazel 4.2.3's
@bazel_tools lacks: the call becomes the plain
toolchain type label.
"""

_PATCHED = [
    "cc/private/rules_impl/compiler_flag.bzl",
    "cc/private/rules_impl/cc_flags_supplier.bzl",
]

def _debian_rules_cc_impl(ctx):
    src = ctx.attr.path
    if not ctx.path(src).exists:
        fail("rules_cc not found at %s: install Debian's bazel-rules-cc (tools/bazel does it)" % src)
    res = ctx.execute(["cp", "-R", src + "/.", "."])
    if res.return_code != 0:
        fail("copying %s failed: %s" % (src, res.stderr))
    for rel in _PATCHED:
        text = ctx.read(rel)
        text = text.replace(', "use_cpp_toolchain")', ")")
        text = text.replace("use_cpp_toolchain()", '["@bazel_tools//tools/cpp:toolchain_type"]')
        ctx.file(rel, text, executable = False)

debian_rules_cc = repository_rule(
    implementation = _debian_rules_cc_impl,
    attrs = {"path": attr.string(default = "/usr/share/bazel/rules/cc")},
    local = True,
)
