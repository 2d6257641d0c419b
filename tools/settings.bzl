"""A string build setting (Bazel's config.string), for choices that a
transition sets: `--//tools:dense_product=levels` on a command line."""

def _string_setting_impl(ctx):
    return []

string_setting = rule(
    implementation = _string_setting_impl,
    build_setting = config.string(flag = True),
)
