"""The end of the DAG, per scale: the filled literate paper, the index of
what results/ holds, and the collector that copies it there."""

load("@rules_cc//cc:defs.bzl", "cc_binary")
load("//paper:results.bzl", "only_files", "results_index", "stage_fingerprints")
load("//tools:stage.bzl", "stage")

load("//paper:dag.bzl", "FINITE_SIZE_D", "INITIAL_DECAY", "MODELS")
load("//paper:readings.bzl", "DATA_SETS", "EQUAL_BUDGET_SEEDS", "HEADLINE", "READINGS", "REPLICATES")
load("//stages/proteins:panel.bzl", "panel_results")
load("//stages/proteins:proteins.bzl", "PROTEIN_RUNS", "coupling_key", "fit_runs")

# Figures drawn once per scale, and the Potts figures drawn once per reading.
FIGURES = ["fig3_left", "fig3_decay", "diversity", "diversity_lambda", "proteins_contacts", "proteins_precision", "proteins_panel"]
POTTS_FIGURES = ["fig2a", "fig2b", "fig2c", "fig2d", "fig3_right"]

# Figures of the heads sweep on the real family (paper scale only).
SWEEP_FIGURES = ["proteins_heads", "proteins_parameters", "proteins_contacts_best"]

def _data_set(scale, d):
    """One Potts data set's data, merged fits and perturbation sweep, and at
    paper scale every training run (the quick data set stands for each)."""
    s = "paper_" + d if scale == "paper" else "quick"
    out = [
        # The data and the trained parameters too (HDF5, a few MB), so
        # that a reader can recompute every number with other tools.
        ("//stages/sample:" + s, d + "_sample", "summary.json,model.h5,train.h5,test.h5"),
        ("//stages/train:" + s, d + "_train", "summary.json,seeds.csv"),
        ("//stages/perturb:" + s, d + "_perturb", "summary.json,perturb_summary.csv,perturb.csv"),
    ]
    if scale == "paper":
        for v in MODELS:
            for seed in DATA_SETS[d][2]:
                out.append(("//stages/train:paper_%s_%s_s%d" % (d, v, seed), None, "summary.json,curves.csv,params.h5"))
    return out

def paper_stages(scale):
    """[(stage target, key in the paper's placeholders or None, files to copy)].

    The paper's placeholders name the Potts stages by reading
    ({{h70_train.factored.gap.mean}}); at quick scale both readings' keys
    stand for the one quick data set, so one template fills at both scales."""
    p = "" if scale == "paper" else "quick_"
    out = [
        ("//stages/gaussian_sim:" + scale, "gaussian", "summary.json,simulation.csv"),
        ("//stages/replica:" + scale, "replica", "summary.json,theory.csv"),
        ("//stages/diversity:" + scale, "diversity", "summary.json,*.csv"),
        ("//stages/claims:" + scale, "claims", "summary.json,claims.csv"),
        ("//stages/gaussian_sim:%s_finite_size" % scale, "finite_size", "summary.json,finite_size.csv,extrapolation.csv"),
    ]
    for D in FINITE_SIZE_D[scale]:
        out.append(("//stages/gaussian_sim:%s_finite_size_d%d" % (scale, D), None, "summary.json,realisations.csv"))
    for fig in FIGURES:
        # Placeholder key: the figure's name ("fig_diversity" beside the
        # diversity stage's own "diversity").
        out.append(("//stages/figures:" + p + fig, fig if fig.startswith("fig") else "fig_" + fig, "*"))
    for r in READINGS:
        s = "paper_" + r if scale == "paper" else "quick"
        out += _data_set(scale, r)
        out.append(("//stages/potts_alpha:" + s, r + "_potts", "summary.json,potts_alpha.csv,realisations.csv"))
        for fig in POTTS_FIGURES:
            out.append(("//stages/figures:" + (fig + "_" + r if scale == "paper" else "quick_" + fig), r + "_" + fig, "*"))
        # The experiment around the peak (paper scale only; the quick
        # experiment stands for it at quick scale).
        out.append((("//stages/potts_alpha:paper_%s_peak" % r) if scale == "paper" else "//stages/potts_alpha:quick", r + "_peak", "summary.json,potts_alpha.csv,realisations.csv"))
    # The initial decay's investigation (paper scale; the quick experiment
    # stands for each variant at quick scale). Keys: h70_initial_V (the
    # smaller initial V), h70_initial_ridge (the larger penalty).
    for v, key in zip(INITIAL_DECAY, ["V", "ridge"]):
        label = "//stages/potts_alpha:paper_%s_initial_%s" % (HEADLINE, v) if scale == "paper" else "//stages/potts_alpha:quick"
        out.append((label, "h70_initial_" + key, "summary.json,potts_alpha.csv,realisations.csv"))

    # The finite-sample excess of each data set's best factored restart.
    if scale == "paper":
        for d in DATA_SETS:
            out.append(("//stages/train:paper_%s_excess" % d, d + "_excess", "summary.json"))
    else:
        # The one quick data set stands for every data set.
        for d in ["h70"] + REPLICATES:
            out.append(("//stages/train:quick_excess", d + "_excess", "summary.json"))

    # The headline's data replicates (paper scale; at quick scale the one
    # quick data set stands for each): data, fits and merges.
    for d in REPLICATES:
        out += _data_set(scale, d)
    # One vanilla layer with factored attention's number of masked-token
    # predictions (paper scale; the quick vanilla1 run stands for it).
    for seed in EQUAL_BUDGET_SEEDS:
        label = "//stages/train:paper_%s_vanilla1_equal_s%d" % (HEADLINE, seed) if scale == "paper" else "//stages/train:quick_vanilla1"
        out.append((label, "vanilla1_equal_s%d" % seed, "summary.json,curves.csv,params.h5"))

    # The real protein family: its columns and contacts, every predictor's
    # run (summaries, curves and contact scores) and the scores.
    family = "//stages/proteins:%s_pf00071" % scale
    out.append((family, "pf00071", "summary.json,columns.csv,contacts.csv"))
    out.append((family + "_score", "proteins", "*.csv,summary.json"))
    for run in PROTEIN_RUNS[scale]:
        out.append(("%s_%s" % (family, run), None, "summary.json,curves.csv,scores.h5" if run not in ["evfold", "psicov"] else "summary.json,scores.h5"))
    # The coupling models (the heads sweep, its references and ablations; the
    # models on the observation's conventions).
    for run, seeds in fit_runs(scale).items():
        for seed in seeds:
            out.append(("%s_%s" % (family, coupling_key(run, seed)), None, "summary.json,curves.csv,scores.h5"))
    for fig in SWEEP_FIGURES:
        # The quick DAG draws no sweep figures: the account's keys for them
        # read the quick contact map's summary (its caption) instead.
        label = "//stages/figures:" + fig if scale == "paper" else "//stages/figures:quick_proteins_contacts"
        out.append((label, "fig_" + fig, "*"))
    # The panel of families (claim P6).
    out += panel_results(scale)
    return out

def paper_targets(scale, collector):
    tags = ["manual"] if scale == "paper" else []
    inputs = {}
    index = {}
    for label, key, copy in paper_stages(scale):
        index[label] = copy
        if key == None:
            continue
        if label.startswith("//stages/figures:"):
            # Only the figure's summary (caption, derived numbers), which
            # does not change when only its script does (Bazel then prunes).
            only_files(name = "%s_%s_summary" % (scale, key), src = label, basenames = ["summary.json"], tags = tags)
            inputs[":%s_%s_summary" % (scale, key)] = key
        elif label in inputs:
            # A second key for the same stage (quick scale): an alias.
            only_files(name = "%s_%s_alias" % (scale, key), src = label, basenames = ["summary.json", "provenance.json"], tags = tags)
            inputs[":%s_%s_alias" % (scale, key)] = key
        else:
            inputs[label] = key
    inputs[":paper_template"] = "template"
    inputs[":spec"] = "spec"
    inputs[":html_header"] = "html_header"

    # The literate paper: paper.md with {{key.field}} filled from summaries.
    stage(
        name = scale + "_md",
        config = "paper_config.json",
        seed = 0,
        tool = ":fill",
        inputs = inputs,
        outs = ["paper.md", "paper.html"],
        # Each number links to the stage that made it, named by its record.
        reads_records = True,
        tags = tags,
    )
    index[":%s_md" % scale] = "paper.md,paper.html"
    results_index(name = scale + "_index", targets = index, tags = tags)

    # What every stage of the DAG is made of (configs, seeds, source inputs,
    # code), for the stale check; builds no stage, so not manual.
    stage_fingerprints(name = scale + "_fingerprints", targets = index.keys())
    cc_binary(
        name = collector,
        srcs = ["collect.cc"],
        args = ["$(rootpath :%s_index)" % scale],
        data = [":%s_index" % scale],
        deps = [
            "//lib/core:io",
            "//lib/provenance:results",
            "//paper:cli",
        ],
        tags = tags,
    )
