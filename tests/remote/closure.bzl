"""`stage_closure`: every file of the given stages and of all the stages
upstream of them (through the stage rule's `inputs`), as runfiles: the
local build's outputs, for comparison with a remote build of the same DAG."""

StageFiles = provider(fields = {"files": "depset of the outputs of a stage and of its upstream stages"})

def _closure_aspect_impl(target, ctx):
    deps = []
    for a in ["inputs", "targets"]:  # stage, results_index: label -> string
        deps += getattr(ctx.rule.attr, a, {}).keys()
    src = getattr(ctx.rule.attr, "src", None)  # only_files: one label
    if src != None:
        deps.append(src)
    upstream = [d[StageFiles].files for d in deps if StageFiles in d]
    return [StageFiles(files = depset(target[DefaultInfo].files.to_list(), transitive = upstream))]

_closure_aspect = aspect(implementation = _closure_aspect_impl, attr_aspects = ["inputs", "targets", "src"])

def _stage_closure_impl(ctx):
    files = depset(transitive = [t[StageFiles].files for t in ctx.attr.targets])
    return [DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files))]

stage_closure = rule(
    implementation = _stage_closure_impl,
    attrs = {"targets": attr.label_list(aspects = [_closure_aspect])},
)
