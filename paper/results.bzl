"""`results_index`: which files of which targets go to results/, and
`stage_fingerprints`: what each stage of the DAG is made of, for the stale
check.

results_index writes <name>.json, {"entries": [{"target", "files", "copy"}],
"stages", "tools"}, listing every file of every target (paths relative to
the runfiles root) and the patterns of the basenames to copy; the files
themselves become runfiles of whatever depends on the index, so `bazel run`
of the collector builds them first.

"stages", "tools" and "binaries" (from the aspect below, over the whole
upstream DAG): {target: {"config": path, "seed", "tool": label, "sources":
[paths]}}, {tool: [its source files, transitively]} and {tool: the path of
the binary that runs (target configuration: tools/stage.bzl)}: what a stage's results depend on
besides upstream stages. The binaries are runfiles too, so the stale check
compares their bytes with the tool_sha256 each provenance record holds.
"""

load("//tools:stage.bzl", "StageRecordInfo")

FingerprintInfo = provider(fields = {
    "stages": "depset of '\"target\": {...}' JSON snippets, one per stage",
    "tools": "depset of '\"tool\": [files]' JSON snippets",
    "binaries": "depset of '\"tool\": \"path of its executable\"' JSON snippets",
    "code": "depset of a cc target's source files in this repository (transitive)",
    "files": "depset of every file the snippets name (configs, source inputs, code)",
})

def _own_sources(ctx):
    out = []
    for a in ["srcs", "hdrs"]:
        for f in getattr(ctx.rule.files, a, []):
            if f.is_source and f.owner.workspace_name == "":
                out.append(f)
    return out

def _fingerprint_aspect_impl(target, ctx):
    deps = []
    for a in ["inputs", "tool", "deps", "src"]:
        v = getattr(ctx.rule.attr, a, None)
        if type(v) == "dict":
            deps += v.keys()
        elif type(v) == "list":
            deps += v
        elif v != None and type(v) == "Target":
            deps.append(v)
    infos = [d[FingerprintInfo] for d in deps if FingerprintInfo in d]
    stages, tools, binaries, files = [], [], [], []
    code = _own_sources(ctx) if ctx.rule.kind.startswith("cc_") else []
    if ctx.rule.kind == "_stage":
        tool = ctx.rule.attr.tool
        tool_files = sorted([f.short_path for f in tool[FingerprintInfo].code.to_list()])
        sources = []
        for d in ctx.rule.attr.inputs.keys():
            for f in d.files.to_list():
                if f.is_source:
                    sources.append(f)
        config = ctx.rule.file.config
        stages.append(json.encode(str(target.label)) + ": " + json.encode({
            "config": config.short_path,
            "seed": ctx.rule.attr.seed,
            "tool": str(tool.label),
            "sources": sorted([f.short_path for f in sources]),
        }))
        tools.append(json.encode(str(tool.label)) + ": " + json.encode(tool_files))
        exe = tool[DefaultInfo].files_to_run.executable
        binaries.append(json.encode(str(tool.label)) + ": " + json.encode(exe.short_path))
        files += [config, exe] + sources + tool[FingerprintInfo].code.to_list()
    return [FingerprintInfo(
        stages = depset(stages, transitive = [i.stages for i in infos]),
        tools = depset(tools, transitive = [i.tools for i in infos]),
        binaries = depset(binaries, transitive = [i.binaries for i in infos]),
        code = depset(code, transitive = [i.code for i in infos] if not ctx.rule.kind == "_stage" else []),
        files = depset(files, transitive = [i.files for i in infos]),
    )]

fingerprint_aspect = aspect(
    implementation = _fingerprint_aspect_impl,
    attr_aspects = ["inputs", "tool", "deps", "src"],
    doc = "Collects, over the DAG upstream of a target, each stage's config, seed, tool and source inputs.",
)

def _fingerprint_json(deps):
    stages = depset(transitive = [d[FingerprintInfo].stages for d in deps if FingerprintInfo in d]).to_list()
    tools = depset(transitive = [d[FingerprintInfo].tools for d in deps if FingerprintInfo in d]).to_list()
    binaries = depset(transitive = [d[FingerprintInfo].binaries for d in deps if FingerprintInfo in d]).to_list()
    files = depset(transitive = [d[FingerprintInfo].files for d in deps if FingerprintInfo in d])
    text = ("\"stages\": {" + ", ".join(sorted(stages)) + "}, \"tools\": {" + ", ".join(sorted(tools)) +
            "}, \"binaries\": {" + ", ".join(sorted(binaries)) + "}")
    return text, files

def _results_index_impl(ctx):
    entries = []
    files = []
    for dep, copy in ctx.attr.targets.items():
        fs = dep.files.to_list()
        entries.append({
            "target": str(dep.label),
            "files": [f.short_path for f in fs],
            "copy": copy,
        })
        files.extend(fs)

    # Every stage upstream of the indexed ones: its record alone.
    indexed = {str(dep.label): True for dep in ctx.attr.targets.keys()}
    records = depset(transitive = [
        dep[StageRecordInfo].records
        for dep in ctx.attr.targets.keys()
        if StageRecordInfo in dep
    ]).to_list()
    by_owner = {str(f.owner): f for f in records}
    for owner in sorted(by_owner.keys()):
        if owner in indexed:
            continue
        entries.append({"target": owner, "files": [by_owner[owner].short_path], "copy": ""})
        files.append(by_owner[owner])
    out = ctx.actions.declare_file(ctx.label.name + ".json")
    fp_text, fp_files = _fingerprint_json(ctx.attr.targets.keys())
    ctx.actions.write(out, json.encode({"entries": entries})[:-1] + ", " + fp_text + "}\n")
    return [DefaultInfo(
        files = depset([out]),
        runfiles = ctx.runfiles(files = files + [out], transitive_files = fp_files),
    )]

results_index = rule(
    implementation = _results_index_impl,
    attrs = {
        "targets": attr.label_keyed_string_dict(
            doc = "stage target -> comma-separated basename patterns to copy (provenance.json always)",
            aspects = [fingerprint_aspect],
        ),
    },
    doc = "Index of the files //paper:all copies into results/.",
)

def _stage_fingerprints_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".json")
    fp_text, fp_files = _fingerprint_json(ctx.attr.targets)
    ctx.actions.write(out, "{" + fp_text + "}\n")

    # Runfiles: the configs, source inputs, code and stage binaries, never
    # the stages' outputs (so the stale check builds no stage).
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out], transitive_files = fp_files))]

stage_fingerprints = rule(
    implementation = _stage_fingerprints_impl,
    attrs = {"targets": attr.label_list(aspects = [fingerprint_aspect])},
    doc = """<name>.json: {"stages", "tools", "binaries"} of the DAG upstream of
`targets` (as in results_index), with the files they name as runfiles.""",
)

def _only_files_impl(ctx):
    files = [f for f in ctx.attr.src.files.to_list() if f.basename in ctx.attr.basenames]
    if len(files) != len(ctx.attr.basenames):
        fail("%s does not output all of %s" % (ctx.attr.src.label, ctx.attr.basenames))
    out = [DefaultInfo(files = depset(files))]
    if StageRecordInfo in ctx.attr.src:
        out.append(ctx.attr.src[StageRecordInfo])
    return out

only_files = rule(
    implementation = _only_files_impl,
    attrs = {
        "src": attr.label(mandatory = True),
        "basenames": attr.string_list(mandatory = True),
    },
    doc = """Forwards some files of a target: the paper reads a figure's
summary.json but not its provenance record, which changes whenever the
figure is redrawn, so editing a figure script reruns that figure alone.""",
)
