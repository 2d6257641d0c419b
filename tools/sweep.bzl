"""Sweeps of the paper's DAG, declared once.

`config` writes a stage configuration from Starlark values with json.encode
(over the keys of a checked-in base file, with other configurations embedded
under a key), so that a grid, a seed list or a chunk count is written in one
place, the BUILD file, and reaches every configuration that needs it.

`chunked_sweep` declares a plan stage, its chunks and their merge: the plan
(`<name>_<plan_key>`) reads its configuration with "chunks" set, chunk k
(`<name>_chunk_<k>`) gets {"chunk": k}, and the merge (`<name>`) gathers the
plan and every chunk. A realisation's numbers do not depend on the chunk
that computes it, so the chunk count changes the DAG, never a result.
"""

load("//tools:stage.bzl", "stage")

def _json_config_impl(ctx):
    out = ctx.actions.declare_file(ctx.attr.out)
    args = ctx.actions.args()
    args.add("--out", out)
    args.add("--json", ctx.attr.content)
    inputs = []
    if ctx.file.base:
        args.add("--base", ctx.file.base)
        inputs.append(ctx.file.base)
    for target, key in ctx.attr.embed.items():
        f = target.files.to_list()[0]
        args.add("--embed", "%s=%s" % (key, f.path))
        inputs.append(f)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [args],
        inputs = inputs,
        outputs = [out],
        mnemonic = "JsonConfig",
        progress_message = "Config %s" % ctx.label,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

_json_config = rule(
    implementation = _json_config_impl,
    attrs = {
        "out": attr.string(mandatory = True),
        "content": attr.string(doc = "a JSON object (json.encode of the values)"),
        "base": attr.label(allow_single_file = [".json"]),
        "embed": attr.label_keyed_string_dict(allow_files = [".json"], doc = "config file -> key it goes under"),
        "_tool": attr.label(default = "//tools:json_config", executable = True, cfg = "target"),  # as stage.bzl's tool
    },
)

def config(name, values = {}, base = None, embed = {}, **kwargs):
    """configs/<name>.json: the keys of `base` (a checked-in .json), then
    `values` (any JSON-encodable Starlark values), then each file of `embed`
    ({label: key}) under its key."""
    _json_config(
        name = name,
        out = "configs/%s.json" % name,
        content = json.encode(values),
        base = base,
        embed = embed,
        **kwargs
    )

def chunked_sweep(
        name,
        chunks,
        plan_key,
        plan_tool,
        plan_config,
        plan_outs,
        chunk_tool,
        chunk_outs,
        merge_tool,
        merge_config,
        merge_outs,
        data = {},
        plan_seed = 1,
        chunk_seed = 1,
        merge_seed = 1,
        tags = []):
    """<name>_<plan_key>, <name>_chunk_<k> for k < chunks, and <name>.

    plan_config: the checked-in configuration of the plan, which gets
    "chunks". data: {upstream stage: key}, inputs of the plan and of every
    chunk. The plan reaches the chunks and the merge under `plan_key`."""
    plan = "%s_%s" % (name, plan_key)
    config(name = plan + "_config", base = plan_config, values = {"chunks": chunks}, tags = tags)
    stage(
        name = plan,
        config = ":%s_config" % plan,
        inputs = data,
        outs = plan_outs,
        seed = plan_seed,
        tool = plan_tool,
        tags = tags,
    )
    for k in range(chunks):
        config(name = "%s_chunk_%d_config" % (name, k), values = {"chunk": k}, tags = tags)
        inputs = dict(data)
        inputs[":" + plan] = plan_key
        stage(
            name = "%s_chunk_%d" % (name, k),
            config = ":%s_chunk_%d_config" % (name, k),
            inputs = inputs,
            outs = chunk_outs,
            seed = chunk_seed,
            tool = chunk_tool,
            tags = tags,
        )
    stage(
        name = name,
        config = merge_config,
        inputs = dict([(":" + plan, plan_key)] + [(":%s_chunk_%d" % (name, k), "chunk%d" % k) for k in range(chunks)]),
        outs = merge_outs,
        seed = merge_seed,
        tool = merge_tool,
        tags = tags,
    )
