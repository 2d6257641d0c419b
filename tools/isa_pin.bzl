"""A stage binary built with its vector kernels pinned to one instruction-set
level, for benchmarks that time each level on one machine.

`isa_pinned_binary(name, binary, level)` builds `binary` in a configuration
that adds the pinning defines to every compile (level "avx2": each kernel's
AVX2 clone alone, as on an AVX2 CPU without AVX-512; "native": no define,
the default binary's bytes). A pinned binary's bytes differ from the
default build's, so its outputs never go to results/; the kernels' bits are
the same at every level (their tests), so its outputs are the same bytes.
"""

# Each level's defines: lib/core/isa.h's POTTS_ISA_PIN, and the older
# per-library pins of the kernels still written with their own macros.
_LEVEL_COPTS = {
    "native": [],
    "avx2": [
        "-DPOTTS_ISA_PIN=1",
        "-DPOTTS_ADAMW_AVX2_ONLY",
        "-DPOTTS_PD_AVX2_ONLY",
        "-DPOTTS_CM_AVX2_ONLY",
    ],
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
