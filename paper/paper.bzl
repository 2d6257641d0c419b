"""The end of the DAG, per scale: the filled literate paper, the index of
what results/ holds, and the collector that copies it there."""

load("@rules_cc//cc:defs.bzl", "cc_binary")
load("//paper:results.bzl", "only_files", "results_index")
load("//tools:stage.bzl", "stage")

FIGURES = ["fig2a", "fig2b", "fig2c", "fig2d", "fig3_left", "fig3_right", "fig3_decay", "diversity"]

def paper_stages(scale):
    """Stage target -> (key in the paper's placeholders, files to copy)."""
    p = "" if scale == "paper" else "quick_"
    d = {
        # The data and the trained parameters too (HDF5, a few MB), so that a
        # reader can recompute every number with other tools.
        "//stages/sample:" + scale: ("sample", "summary.json,model.h5,train.h5,test.h5"),
        "//stages/train:%s_factored" % scale: ("factored", "summary.json,curves.csv,params.h5"),
        "//stages/train:%s_vanilla1" % scale: ("vanilla1", "summary.json,curves.csv,params.h5"),
        "//stages/train:%s_vanilla3" % scale: ("vanilla3", "summary.json,curves.csv,params.h5"),
        "//stages/perturb:" + scale: ("perturb", "summary.json,perturb_summary.csv,perturb.csv"),
        "//stages/gaussian_sim:" + scale: ("gaussian", "summary.json,simulation.csv"),
        "//stages/replica:" + scale: ("replica", "summary.json,theory.csv"),
        "//stages/potts_alpha:%s_data" % scale: ("potts_data", "summary.json"),
        "//stages/potts_alpha:" + scale: ("potts", "summary.json,potts_alpha.csv"),
        "//stages/diversity:" + scale: ("diversity", "summary.json,*.csv"),
    }
    for fig in FIGURES:
        # Placeholder key: the figure's name ("fig_diversity" beside the
        # diversity stage's own "diversity").
        d["//stages/figures:" + p + fig] = (fig if fig.startswith("fig") else "fig_" + fig, "*")
    return d

def paper_targets(scale, collector):
    tags = ["manual"] if scale == "paper" else []
    stages = paper_stages(scale)
    inputs = {}
    for label, (key, _) in stages.items():
        if label.startswith("//stages/figures:"):
            # Only the figure's summary (caption, derived numbers), which
            # does not change when only its script does (Bazel then prunes).
            only_files(name = "%s_%s_summary" % (scale, key), src = label, basenames = ["summary.json"], tags = tags)
            inputs[":%s_%s_summary" % (scale, key)] = key
        else:
            inputs[label] = key
    inputs[":paper_template"] = "template"

    # The literate paper: paper.md with {{key.field}} filled from summaries.
    stage(
        name = scale + "_md",
        config = "paper_config.json",
        seed = 0,
        tool = ":fill",
        inputs = inputs,
        outs = ["paper.md"],
        tags = tags,
    )
    index = {label: copy for label, (_, copy) in stages.items()}
    index[":%s_md" % scale] = "paper.md"
    results_index(name = scale + "_index", targets = index, tags = tags)
    cc_binary(
        name = collector,
        srcs = ["collect.cc"],
        args = ["$(rootpath :%s_index)" % scale],
        data = [":%s_index" % scale],
        deps = [
            "//lib/core:io",
            "//lib/provenance:results",
        ],
        tags = tags,
    )
