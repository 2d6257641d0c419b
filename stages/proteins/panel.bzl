"""`covariation_panel`: the proteins branch over the covariation benchmark's
40 families (third_party/covariation), one family at a time:

paper_panel_<pfam>                  proteins_prepare (format "covariation")
paper_panel_<pfam>_cm_plm           the weighted PLM (couplings stage)
paper_panel_<pfam>_cm_plm_pad       the PLM on the observation's conventions
paper_panel_<pfam>_cm_attn_nofields_h256_s1
                                    factored attention in the pinned protocol
paper_panel_<pfam>_<evfold|psicov>  freecontact's baselines
paper_panel_<pfam>_score            the five scored against the structure
paper_panel                         the 40 families side by side (proteins_panel)

Every fit is its own action, so a farm runs them side by side. The
predictors are fixed by claim P6's rule (lib/claims/panel_claim.h).
"""

load("//stages/proteins:proteins.bzl", "BASELINES", "PREPARE_OUTS", "coupling_key", "coupling_runs", "score_skips")
load("//third_party/covariation:families.bzl", "COVARIATION_FAMILIES")
load("//tools:stage.bzl", "stage")
load("//tools:sweep.bzl", "config")

PANEL_COUPLINGS = {"plm": [0]}
PANEL_ATTENTION = {"attn_nofields_h256": [1]}
PANEL_PLM_PAD = {"plm_pad": [0]}

PANEL_SCORE_OUTS = [
    "top_pairs.csv",
    "precision.csv",
    "curves.csv",
    "map_true.csv",
    "summary.json",
]

_DATA = "//third_party/covariation:"

def panel_prepare(name, pfam, chain):
    """The prepare stage of one family (its config: the base's keys and its Pfam id)."""
    config(
        name = name + "_prepare_config",
        values = {"pfam": pfam},
        base = "configs/panel_prepare.json",
    )
    stage(
        name = name,
        config = ":%s_prepare_config" % name,
        inputs = {
            _DATA + "analysis/natural_alignments/%s.align.80" % pfam: "msa",
            _DATA + "input/domains/%s/%s.pdb" % (pfam, chain): "structure",
            _DATA + "analysis/domain_sequences.txt": "query",
            _DATA + "analysis/indices/%s.indices" % chain: "indices",
        },
        outs = PREPARE_OUTS,
        seed = 1,
        tool = "//stages/proteins:prepare",
    )

def panel_family(name, pfam, chain, couplings = PANEL_COUPLINGS, attention = PANEL_ATTENTION,
                 plm_pad = PANEL_PLM_PAD, baselines = BASELINES, score_config = "configs/panel_score.json"):
    """One family: prepared, fitted by each predictor, scored."""
    panel_prepare(name, pfam, chain)
    family = {":" + name: "family"}
    runs = {":" + name: "family"}
    for profile in baselines:
        stage(
            name = name + "_" + profile,
            config = "configs/%s.json" % profile,
            inputs = family,
            outs = ["freecontact.txt", "scores.h5", "summary.json"],
            seed = 0,
            tool = "//stages/proteins:freecontact",
        )
        runs[":%s_%s" % (name, profile)] = profile
    runs.update(coupling_runs(name, couplings, ""))
    runs.update(coupling_runs(name, attention, "", kind = "attention"))
    runs.update(coupling_runs(name, plm_pad, "", kind = "plm_pad"))
    stage(
        name = name + "_score",
        config = score_config,
        inputs = runs,
        outs = PANEL_SCORE_OUTS,
        seed = 0,
        skip_inputs = score_skips(runs, trained = []),
        tool = "//stages/proteins:score",
    )

def panel_table(name, families, config):
    """<name>: the proteins_panel stage over families ({stage prefix: id}:
    the prefix's prepare stage and its _score)."""
    inputs = {}
    for prefix, fid in families.items():
        inputs[":" + prefix] = "family_" + fid
        inputs[":%s_score" % prefix] = "score_" + fid
    stage(
        name = name,
        config = config,
        inputs = inputs,
        outs = ["panel.csv", "summary.json"],
        seed = 0,
        tool = "//stages/proteins:panel",
    )

def covariation_panel(name):
    """Every family's branch, and <name>: the table of all 40 (proteins_panel)."""
    families = {}
    for pfam, chain in COVARIATION_FAMILIES.items():
        prefix = "paper_panel_" + pfam.lower()
        panel_family(prefix, pfam, chain)
        families[prefix] = pfam.lower()
    panel_table(name, families, "configs/panel_table.json")

def panel_results(scale):
    """[(stage label, key in the paper's placeholders or None, files to
    copy)]: what results/ keeps of the panel. At paper scale: the table, and
    for every family its columns and contacts, its precisions and each
    predictor's score matrix (so that proteins/rescore.py can rescore every
    family from its structure); at quick scale the quick table."""
    if scale != "paper":
        return [("//stages/proteins:quick_panel", "panel", "panel.csv,summary.json")]
    out = [("//stages/proteins:paper_panel", "panel", "panel.csv,summary.json")]
    runs = list(BASELINES)
    for table in [PANEL_COUPLINGS, PANEL_ATTENTION, PANEL_PLM_PAD]:
        runs += [coupling_key(run, seed) for run, seeds in table.items() for seed in seeds]
    for pfam in COVARIATION_FAMILIES:
        family = "//stages/proteins:paper_panel_" + pfam.lower()
        out.append((family, None, "summary.json,columns.csv,contacts.csv"))
        out.append((family + "_score", None, "summary.json,precision.csv"))
        out += [("%s_%s" % (family, run), None, "summary.json,scores.h5") for run in runs]
    return out
