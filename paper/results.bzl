"""`results_index`: which files of which targets go to results/.

Writes <name>.json, {"entries": [{"target", "files", "copy"}]}, listing every
file of every target (paths relative to the runfiles root) and the patterns
of the basenames to copy; the files themselves become runfiles of whatever
depends on the index, so `bazel run` of the collector builds them first.
"""

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
    out = ctx.actions.declare_file(ctx.label.name + ".json")
    ctx.actions.write(out, json.encode({"entries": entries}) + "\n")
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = files + [out]))]

results_index = rule(
    implementation = _results_index_impl,
    attrs = {
        "targets": attr.label_keyed_string_dict(
            doc = "stage target -> comma-separated basename patterns to copy (provenance.json always)",
        ),
    },
    doc = "Index of the files //paper:all copies into results/.",
)

def _only_files_impl(ctx):
    files = [f for f in ctx.attr.src.files.to_list() if f.basename in ctx.attr.basenames]
    if len(files) != len(ctx.attr.basenames):
        fail("%s does not output all of %s" % (ctx.attr.src.label, ctx.attr.basenames))
    return [DefaultInfo(files = depset(files))]

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
