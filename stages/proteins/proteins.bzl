"""`protein_family`: the proteins branch of the DAG for one alignment.

<name>                  proteins_prepare: columns, weights, split, contacts
<name>_<model>_s<seed>  proteins_train for each trained model and seed
<name>_plm              the pseudo-likelihood baseline (deterministic)
<name>_<baseline>       freecontact's EVfold / PSICOV
<name>_score            every predictor scored (only with a structure)

Configs are configs/<config_prefix><model>.json.
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

def protein_family(name, config, msa, models, structure = None, config_prefix = "", baselines = BASELINES):
    inputs = {msa: "msa"}
    if structure:
        inputs[structure] = "structure"
    stage(
        name = name,
        config = config,
        inputs = inputs,
        outs = [
            "train.h5",
            "test.h5",
            "train.aln",
            "columns.csv",
            "contacts.csv",
            "summary.json",
        ],
        seed = 1,
        tool = "//stages/proteins:prepare",
    )
    family = {":" + name: "family"}
    runs = {}
    for model, seeds in models.items():
        for seed in seeds:
            run = "%s_s%d" % (model, seed)
            stage(
                name = name + "_" + run,
                config = "configs/%s%s.json" % (config_prefix, model),
                inputs = family,
                outs = TRAIN_OUTS,
                seed = seed,
                threaded = True,
                tool = "//stages/proteins:train",
            )
            runs[":%s_%s" % (name, run)] = run
    stage(
        name = name + "_plm",
        config = "configs/%splm.json" % config_prefix,
        inputs = family,
        outs = TRAIN_OUTS,
        seed = 0,
        tool = "//stages/proteins:train",
    )
    runs[":%s_plm" % name] = "plm"
    for profile in baselines:
        stage(
            name = name + "_" + profile,
            config = "configs/%s.json" % profile,
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
    if structure:
        runs[":" + name] = "family"
        stage(
            name = name + "_score",
            config = "configs/%sscore.json" % config_prefix,
            inputs = runs,
            outs = SCORE_OUTS,
            seed = 0,
            tool = "//stages/proteins:score",
        )
