"""`contact_family`: the proteins branch on a user's own alignment, for
//proteins:contacts. The fits are `protein_family`'s (the paper's macro,
the same stages and configurations), on the predictors the user chose; the
reports (scores, figures, exported files) are made by `contact_report` for
whichever subset of predictors is given, skipping, with a note, what a
subset cannot make.

<name>_msa              proteins_a3m: the alignment as A2M (FASTA inputs)
<name>, <name>_<run>    protein_family's prepare and fit stages
<name>_score            every chosen predictor's top pairs (and, with a
                        structure, precision tables and curves)
<name>_precision        precision against k (with a structure)
<name>_contacts         the contact map (with a structure, factored and plm)
<name>_export           <run>.mat and <run>.rr for every run
<name>_notes            what was skipped, and why (notes.json)
<name>_all              all of the above
"""

load("//stages/figures:figures.bzl", "figure")
load("//stages/proteins:proteins.bzl", "protein_family", "score_skips")
load("//tools:stage.bzl", "stage")

# The predictors of //proteins:contacts, in the order they run and are
# reported: (name for --models, the curve's title, what it is). The one list:
# the front end reads it from predictors.json (`contact_predictors_json`).
CONTACT_PREDICTORS = [
    ("factored", "factored attention (1 layer)", "masked language model, seeds 1..N"),
    ("vanilla1", "vanilla transformer, 1 layer", "masked language model, seeds 1..N"),
    ("vanilla3", "vanilla transformer, 3 layers", "masked language model, seeds 1..N"),
    ("plm", "pseudo-likelihood (PLM), MLM data", "the PLM on the MLM models' training clusters"),
    ("cm_plm", "weighted PLM (plmDCA)", "the weighted pseudo-likelihood model, on every sequence (--hold-out: the training clusters)"),
    ("attention", "factored attention, the observation's protocol", "H = 256, d = 32, no fields, 5000 AdamW steps (the longest step)"),
    ("plm_pad", "PLM, the observation's conventions", "the PLM with the gap as a pad, no sequence weights"),
    ("evfold", "EVfold (freecontact)", "freecontact's EVfold-mfDCA, on every sequence"),
    ("psicov", "PSICOV (freecontact)", "freecontact's PSICOV, on every sequence"),
]

TRAINED = ["factored", "vanilla1", "vanilla3"]

def _json_file_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".json")
    ctx.actions.write(out, json.encode_indent(json.decode(ctx.attr.content), indent = "  ") + "\n")
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

json_file = rule(
    implementation = _json_file_impl,
    attrs = {"content": attr.string(mandatory = True, doc = "the JSON value, encoded")},
    doc = "<name>.json holding `content` (written from a Starlark value: never by hand).",
)

def contact_predictors_json(name):
    """<name>.json: CONTACT_PREDICTORS for the front end."""
    json_file(
        name = name,
        content = json.encode([{"name": n, "title": t, "help": h} for n, t, h in CONTACT_PREDICTORS]),
    )

def _column(predictor, options):
    """The predictor's column in the score stage's curves.csv."""
    if predictor == "cm_plm":
        return "cm_heldout_plm" if options["hold_out"] else "cm_plm"
    if predictor == "attention":
        return "cm_attn_h4" if options["quick"] else "cm_attn_nofields_h256"
    if predictor == "plm_pad":
        return "cm_plm_pad"
    return predictor

def run_keys(predictor, options):
    """The keys of the runs protein_family makes for `predictor` under
    `options` (seeds, hold_out, quick): the score stage's input keys."""
    if predictor in TRAINED:
        return ["%s_s%d" % (predictor, s) for s in range(1, options["seeds"] + 1)]
    if predictor == "attention":
        return [_column(predictor, options) + "_s1"]
    return [_column(predictor, options)]

def contact_family(name, options, msa, structure = None):
    """The fits of `options` (the front end's: format, query, first_residue,
    models, seeds, hold_out, quick, target, threads) on `msa`, and their
    reports."""
    quick = options["quick"]
    prefix = "quick_" if quick else ""
    chosen = options["models"]
    prepare = {"identity": 0.8, "test_fraction": 0.2, "contact_cutoff": 8.0, "min_separation": 6}
    if options["format"] == "aln":
        prepare["format"] = "aln"
        prepare["first_residue"] = options["first_residue"]
        family_msa = msa
    else:
        # FASTA: A3M is padded into A2M, A2M passes through (proteins_a3m).
        json_file(name = name + "_msa_config", content = json.encode({
            "format": options["format"],
            "query": options["query"],
            "first_residue": options["first_residue"],
        }))
        stage(
            name = name + "_msa",
            tool = "//stages/proteins:a3m",
            config = ":%s_msa_config" % name,
            seed = 0,
            inputs = {msa: "msa"},
            outs = ["msa.a2m"],
        )
        prepare["format"] = "a2m"
        prepare["query"] = options["query"]
        family_msa = ":%s_msa" % name
    json_file(name = name + "_prepare_config", content = json.encode(prepare))
    seeds = list(range(1, options["seeds"] + 1))
    runs = protein_family(
        name = name,
        config = ":%s_prepare_config" % name,
        msa = family_msa,
        structure = structure,
        models = {m: seeds for m in TRAINED if m in chosen},
        config_prefix = prefix,
        baselines = [b for b in ["evfold", "psicov"] if b in chosen],
        couplings = {("heldout_plm" if options["hold_out"] else "plm"): [0]} if "cm_plm" in chosen else {},
        attention = {("attn_h4" if quick else "attn_nofields_h256"): [1]} if "attention" in chosen else {},
        plm = "plm" in chosen,
        plm_pad = "plm_pad" in chosen,
        score = False,
        package = "//stages/proteins:",
        threads = options.get("threads", 0),
    )
    contact_report(name, ":" + name, runs, chosen, options, structure != None,
                   steps = [name] + ([name + "_msa"] if options["format"] != "aln" else []))

def _report_figure(name, kind, script, config):
    """The figure <name>_<kind> of the score stage's outputs, drawn by
    //stages/figures:scripts/<script>.gp with `config` (a Starlark value);
    returns its label."""
    json_file(name = "%s_%s_config" % (name, kind), content = json.encode(config))
    figure(
        name = "%s_%s" % (name, kind),
        config = ":%s_%s_config" % (name, kind),
        script = "//stages/figures:scripts/%s.gp" % script,
        inputs = {":%s_score" % name: "proteins"},
    )
    return ":%s_%s" % (name, kind)

def contact_report(name, family, runs, chosen, options, has_structure, steps = []):
    """Scores, figures and exported files of the fits `runs` ({label: key})
    of the predictors `chosen`; what the subset cannot make is skipped and
    said in <name>_notes, which also lists every step (target name) made:
    `steps`, the fits and the reports."""
    prefix = "quick_" if options["quick"] else ""
    notes = []
    targets = [":%s_score" % name, ":%s_export" % name, ":%s_notes" % name]
    inputs = dict(runs)
    inputs[family] = "family"
    maps = has_structure and "factored" in chosen and "plm" in chosen
    if has_structure:
        outs = ["top_pairs.csv", "precision.csv", "curves.csv", "map_true.csv"]
        if maps:
            outs += ["map_factored_hits.csv", "map_factored_misses.csv", "map_plm_hits.csv", "map_plm_misses.csv"]
    else:
        outs = ["top_pairs.csv"]
        notes.append("no structure (--pdb): no precision table, precision curves or contact map; top_pairs.csv lists each run's top L pairs unscored")
    stage(
        name = name + "_score",
        tool = "//stages/proteins:score",
        config = "//stages/proteins:configs/%sscore.json" % prefix,
        seed = 0,
        inputs = inputs,
        outs = outs + ["summary.json"],
        # What the score never reads (score_skips): the trained models'
        # runs keep their curves.csv, the loss summary it reports.
        skip_inputs = score_skips(runs, [label for label, key in runs.items() if key.rsplit("_s", 1)[0] in TRAINED]),
    )
    if has_structure:
        targets.append(_report_figure(name, "precision", "contacts_precision", {
            "figure": "xy",
            "caption": "Precision of the k highest-scoring pairs with ∣i − j∣ ≥ 6 against k, per predictor (trained models: mean over seeds); k = L = {{proteins.L}} dotted. {{proteins.provenance.target}}",
            "series": {
                "%d_%s" % (i + 1, p): {
                    "key": "proteins",
                    "file": "curves.csv",
                    "x": "k",
                    "y": _column(p, options),
                    "average": False,
                    "title": title,
                }
                for i, (p, title, _) in enumerate([c for c in CONTACT_PREDICTORS if c[0] in chosen])
            },
            "size_inches": [5.0, 4.2],
            "hline": {"key": "proteins", "field": "L"},
        }))
    if maps:
        series = [("true", "contact")] + [
            ("%s_%s" % (p, kind), "%s: %s" % (label, "correct" if kind == "hits" else "incorrect"))
            for p, label in [("factored", "factored attention"), ("plm", "PLM")]
            for kind in ["hits", "misses"]
        ]
        targets.append(_report_figure(name, "contacts", "proteins_contacts", {
            "figure": "xy",
            "caption": "The structure's contacts (Cβ < 8 Å, ∣i − j∣ ≥ 6) in grey; the top L = {{proteins.L}} pairs of factored attention (above the diagonal, seed {{proteins.map_seed}}) and of the PLM (below), each correct or incorrect. {{proteins.provenance.target}}",
            "series": {
                "%d_%s" % (i + 1, s): {"key": "proteins", "file": "map_%s.csv" % s, "x": "x", "y": "y", "average": False, "title": t}
                for i, (s, t) in enumerate(series)
            },
            "size_inches": [5.0, 5.6],
        }))
    elif has_structure:
        notes.append("the contact map draws factored attention against the PLM: give both (--models factored,plm,...) to draw it")
    json_file(name = name + "_export_config", content = json.encode({
        "target": options["target"],
        "min_separation": 6,
        "pairs_per_residue": 5,
    }))
    keys = sorted([k for k in runs.values() if k != "family"])
    stage(
        name = name + "_export",
        tool = "//stages/proteins:export",
        config = ":%s_export_config" % name,
        seed = 0,
        inputs = inputs,
        outs = [k + ext for k in keys for ext in [".mat", ".rr"]] + ["summary.json"],
    )
    made = steps + [label.split(":")[-1] for label in runs] + [t[1:] for t in targets if t != ":%s_notes" % name]
    json_file(name = name + "_notes", content = json.encode({"skipped": notes, "steps": made}))
    native.filegroup(name = name + "_all", srcs = targets + [label for label in runs if label != family])
