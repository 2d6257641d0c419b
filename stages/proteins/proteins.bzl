"""`protein_family`: the proteins branch of the DAG for one alignment.

<name>                  proteins_prepare: columns, weights, split, contacts
<name>_<model>_s<seed>  proteins_train for each trained model and seed
<name>_plm              proteins_plm: the pseudo-likelihood baseline (deterministic)
<name>_<baseline>       freecontact's EVfold / PSICOV
<name>_score            every predictor scored (only with a structure)
<name>_cm_<run>[_s<seed>] coupling models fitted by the couplings stage, or
                        by the attention stage (the observation's conventions)
<name>_cm_plm_pad       the PLM on the observation's conventions (plm_pad stage)

Configs are configs/<config_prefix><model>.json (coupling models:
configs/<config_prefix>cm_<run>.json; attention: configs/attention/
<config_prefix><run>.json; configs/<config_prefix>plm_pad.json).
"""

load("//tools:stage.bzl", "stage")

# The models of the real family, per scale (seeds of each trained model),
# and every run of a branch by its name suffix.
PROTEIN_MODELS = {
    "paper": {
        "factored": [1, 2, 3],
        "vanilla1": [1, 2, 3],
        "vanilla3": [1, 2, 3],
    },
    "quick": {
        "factored": [1, 2],
        "vanilla1": [1],
        "vanilla3": [1],
    },
}

BASELINES = ["evfold", "psicov"]

PROTEIN_RUNS = {
    scale: ["%s_s%d" % (m, s) for m, seeds in models.items() for s in seeds] + ["plm"] + BASELINES
    for scale, models in PROTEIN_MODELS.items()
}

# Coupling models of the family (the couplings stage), per scale: run ->
# seeds; seed 0 marks a deterministic fit (the full model, convex, from zero
# couplings), one run without a seed suffix. Each is scored as predictor
# cm_<run>. Fits on every sequence give the contacts (the contact tools'
# convention); "heldout_" fits see only the training sequences and give the
# held-out test loss. Paper scale:
#  * the heads sweep: factored attention (eq. 4 summed over H heads) with
#    fields, sequence weights and the PLM's penalty, by L-BFGS;
#  * the observation's configuration in the couplings stage's protocol:
#    softmax attention, 32 heads of dimension 16, values of rank 16,
#    couplings symmetrised, weights, the PLM's penalty, by L-BFGS (one of
#    claim P4's configurations);
#  * the weighted PLM (the full model), the reference of claims P3 and P4;
#  * the eq. 4 fit at H = 64 with the penalty on the couplings W rather than
#    on A and V ("factored_penw_h64");
#  * ablations on the training sequences, from the single-head model as the
#    synthetic protocol trains it (SGD, no fields, weights or penalty), one
#    change each: fields, weights, penalty, or L-BFGS for SGD.
# Retired (docs/history.md): the softmax fits with 300 iterations and two
# explorations of them, and the factored fits with 300 iterations (claim
# P4b), superseded by the observation's own protocol (ATTENTION_RUNS).
HEADS = [1, 4, 16, 64]

COUPLING_RUNS = {
    "paper": dict(
        [("plm", [0]), ("heldout_plm", [0])] +
        [("factored_h%d" % h, [1, 2, 3]) for h in HEADS] +
        [("softmax_h32", [1, 2, 3])] +
        [("heldout_factored_h%d" % h, [1]) for h in HEADS] +
        [("heldout_softmax_h32", [1])] +
        [("ablation_" + a, [1, 2, 3]) for a in ["sgd", "sgd_fields", "sgd_weights", "sgd_penalty", "lbfgs"]] +
        [("factored_penw_h64", [1]), ("heldout_factored_penw_h64", [1])],
    ),
    "quick": {
        "plm": [0],
        "heldout_factored_h4": [1],
        "softmax_h2": [1],
    },
}

# Models on the observation's data conventions (the attention stage: the gap
# a pad, no sequence weights), per scale, keyed and scored as the coupling
# runs (predictor cm_<run>): factored attention trained as the observation's
# public code trains it (AdamW on batches, the penalty on W), at its main
# configuration (H = 256, d = 32; three seeds and a held-out fit), at
# H = 128 and 64, and at its code's defaults (32 x 16). The pseudo-likelihood
# model on the same conventions (claim P5's reference) is the plm_pad stage's.
ATTENTION_RUNS = {
    "paper": {
        "attn_h256": [1, 2, 3],
        "attn_nofields_h256": [1, 2, 3],
        "heldout_attn_h256": [1],
        "attn_h128": [1],
        "attn_h64": [1],
        "attn_h32_d16": [1],
    },
    "quick": {
        "attn_h4": [1],
    },
}

# The pseudo-likelihood model on the observation's conventions (the plm_pad
# stage; claim P5's reference), deterministic, at both scales.
PLM_PAD_RUNS = {"plm_pad": [0]}

def fit_runs(scale):
    """Every coupling-model fit of a branch (couplings, attention, plm_pad stages): run -> seeds."""
    return dict(dict(COUPLING_RUNS[scale], **ATTENTION_RUNS[scale]), **PLM_PAD_RUNS)

# The prepare stage's outputs (prepare_stage.h).
PREPARE_OUTS = [
    "train.h5",
    "test.h5",
    "train.aln",
    "columns.csv",
    "contacts.csv",
    "summary.json",
]

COUPLING_OUTS = [
    "params.h5",
    "scores.h5",
    "curves.csv",
    "summary.json",
]

# The score stage's outputs for the heads sweep (score config
# "sweep_series", "best_among"): per-run tables for the figures and the
# contact map of the best coupling model against the reference.
SWEEP_SCORE_OUTS = [
    "sweep_attention.csv",
    "sweep_factored.csv",
    "sweep_softmax.csv",
    "sweep_baselines.csv",
    "map_best_hits.csv",
    "map_best_misses.csv",
    "map_reference_hits.csv",
    "map_reference_misses.csv",
]

def coupling_key(run, seed):
    return "cm_" + run + ("_s%d" % seed if seed else "")

def quick_fits(*runs):
    """The quick family and its fit stages of each of `runs` ({run: seeds})."""
    return [":quick_pf00071"] + [
        ":quick_pf00071_" + coupling_key(run, seed)
        for r in runs
        for run, seeds in r.items()
        for seed in seeds
    ]

# The coupling-model fit stages: each run's binary, config file (from the
# config prefix and the run) and whether it takes threads.
FIT_STAGES = {
    "couplings": struct(tool = "//stages/proteins:couplings", config = "configs/%scm_%s.json", threaded = True),
    "attention": struct(tool = "//stages/proteins:attention", config = "configs/attention/%s%s.json", threaded = True),
    "plm_pad": struct(tool = "//stages/proteins:plm_pad", config = "configs/%s%s.json", threaded = True),
}

def coupling_runs(family, runs, config_prefix, kind = "couplings", package = "", threads = 0):
    """The fit stages <family>_cm_<run>[_s<seed>] of one kind; {label: predictor key}.
    `package` prefixes the config labels ("//stages/proteins:" from another package);
    `threads`, where not 0, is their --threads (the stage rule's attribute)."""
    fit = FIT_STAGES[kind]
    out = {}
    for run, seeds in runs.items():
        for seed in seeds:
            key = coupling_key(run, seed)
            stage(
                name = family + "_" + key,
                config = package + fit.config % (config_prefix, run),
                inputs = {":" + family: "family"},
                outs = COUPLING_OUTS,
                seed = seed,
                threaded = fit.threaded,
                threads = threads,
                tool = fit.tool,
            )
            out[":%s_%s" % (family, key)] = key
    return out

TRAIN_OUTS = [
    "params.h5",
    "scores.h5",
    "curves.csv",
    "summary.json",
]

SCORE_OUTS = [
    "top_pairs.csv",
    "precision.csv",
    "curves.csv",
    "map_true.csv",
    "map_factored_hits.csv",
    "map_factored_misses.csv",
    "map_plm_hits.csv",
    "map_plm_misses.csv",
    "summary.json",
]

def score_skips(runs, trained):
    """The score stage's skip_inputs over `runs` ({label: key}): every run's
    params.h5 and freecontact.txt, and curves.csv but for the `trained`
    labels (score_stage.cc reads a transformer's test-loss curve only)."""
    skips = []
    for label, key in runs.items():
        skips += [key + "/params.h5", key + "/freecontact.txt"]
        if label not in trained:
            skips.append(key + "/curves.csv")
    return skips

def protein_family(name, config, msa, models, structure = None, config_prefix = "", baselines = BASELINES,
                   couplings = {}, attention = {}, score_outs = SCORE_OUTS, score_config = None, plm = True,
                   plm_pad = True, score = True, package = "", threads = 0):
    """The branch's stages; returns its fits as {label: predictor key}. `plm`,
    `plm_pad` and `score` leave out those stages when False; `package`
    prefixes the config labels, for a family declared in another package
    (//proteins:contacts); `threads`, where not 0, is the threaded stages'
    --threads in place of //tools:stage_threads."""
    inputs = {msa: "msa"}
    if structure:
        inputs[structure] = "structure"
    stage(
        name = name,
        config = config,
        inputs = inputs,
        outs = PREPARE_OUTS,
        seed = 1,
        tool = "//stages/proteins:prepare",
    )
    family = {":" + name: "family"}
    runs = {}
    trained = []
    for model, seeds in models.items():
        for seed in seeds:
            run = "%s_s%d" % (model, seed)
            stage(
                name = name + "_" + run,
                config = package + "configs/%s%s.json" % (config_prefix, model),
                inputs = family,
                outs = TRAIN_OUTS,
                seed = seed,
                threaded = True,
                threads = threads,
                tool = "//stages/proteins:train",
            )
            runs[":%s_%s" % (name, run)] = run
            trained.append(":%s_%s" % (name, run))
    if plm:
        stage(
            name = name + "_plm",
            config = package + "configs/%splm.json" % config_prefix,
            inputs = family,
            outs = TRAIN_OUTS,
            seed = 0,
            tool = "//stages/proteins:plm",
        )
        runs[":%s_plm" % name] = "plm"
    for profile in baselines:
        stage(
            name = name + "_" + profile,
            config = package + "configs/%s.json" % profile,
            inputs = family,
            outs = [
                "freecontact.txt",
                "scores.h5",
                "summary.json",
            ],
            seed = 0,
            tool = "//stages/proteins:freecontact",
        )
        runs[":%s_%s" % (name, profile)] = profile
    runs.update(coupling_runs(name, couplings, config_prefix, package = package, threads = threads))
    runs.update(coupling_runs(name, attention, config_prefix, kind = "attention", package = package, threads = threads))
    if plm_pad:
        runs.update(coupling_runs(name, PLM_PAD_RUNS, config_prefix, kind = "plm_pad", package = package,
                                  threads = threads))
    if structure and score:
        score_inputs = dict(runs)
        score_inputs[":" + name] = "family"
        stage(
            name = name + "_score",
            config = score_config or "configs/%sscore.json" % config_prefix,
            inputs = score_inputs,
            outs = score_outs,
            seed = 0,
            # What the score never reads: a fit's parameters, the curves of
            # all but the trained transformers (its loss summary), the
            # baselines' raw lists.
            skip_inputs = score_skips(runs, trained),
            tool = "//stages/proteins:score",
        )
        runs[":" + name] = "family"
    return runs
