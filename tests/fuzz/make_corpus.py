#!/usr/bin/env python3
"""Builds the seed corpus of the stage fuzzers (tests/fuzz/corpus/) from the
quick pipeline's outputs: python3 tests/fuzz/make_corpus.py BAZEL_BIN.

corpus/config_<stage>/config.json   a valid configuration of the stage, plus
  inputs/<key>                      the inputs it reads before its config;
corpus/merge_<stage>/config.json    a merge's configuration, plus
  inputs/<key>                      every CSV and JSON input it reads
                                    (shrunk where the merge allows), and
                                    the HDF5 files it needs, as built.
"""
import csv, io, json, os, shutil, sys

bin_dir = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
out = os.path.join(here, "corpus")
for d in os.listdir(out) if os.path.isdir(out) else []:
    if d.startswith(("config_", "merge_")):  # lib_* seeds are kept
        shutil.rmtree(os.path.join(out, d))


def put(reader, rel, data):
    p = os.path.join(out, reader, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(data if isinstance(data, str) else json.dumps(data, indent=2) + "\n")


def src(p):
    return open(os.path.join(root, p)).read()


def built(p):
    return open(os.path.join(bin_dir, p)).read()


# Stage configurations (the quick scale).
for stage, path in [("sample", "stages/sample/configs/quick.json"),
                    ("train", "stages/train/configs/quick_factored.json"),
                    ("train_vanilla", "stages/train/configs/quick_vanilla3.json"),
                    ("gaussian_merge", "stages/gaussian_sim/configs/merge.json"),
                    ("replica", "stages/replica/configs/quick.json"),
                    ("potts_alpha_merge", "stages/potts_alpha/configs/merge.json"),
                    ("diversity_fit", "stages/diversity/configs/fit_quick.json"),
                    ("claims", "stages/claims/quick_config.json"),
                    ("figures", "stages/figures/configs/fig2a.json"),
                    ("figures_heatmaps", "stages/figures/configs/fig2c.json")]:
    put("config_" + stage, "config.json", src(path))
# Configurations the build writes (tools/sweep.bzl: a plan's chunk count,
# each chunk's index; the diversity merge's list of points).
for stage, path in [("gaussian_model", "stages/gaussian_sim/configs/quick_model_config.json"),
                    ("gaussian_simulate", "stages/gaussian_sim/configs/quick_chunk_0_config.json"),
                    ("potts_alpha_plan", "stages/potts_alpha/configs/quick_plan_config.json"),
                    ("potts_alpha_fit", "stages/potts_alpha/configs/quick_chunk_0_config.json"),
                    ("diversity_merge", "stages/diversity/configs/merge_quick.json")]:
    put("config_" + stage, "config.json", built(path))
put("config_perturb", "config.json", built("stages/perturb/configs/quick_a0.05.json"))
put("config_perturb_merge", "config.json", built("stages/perturb/configs/quick_merge.json"))
put("config_train_merge", "config.json", built("stages/train/configs/quick_merge.json"))
put("config_gaussian_simulate", "inputs/model/summary.json", built("stages/gaussian_sim/quick_model/summary.json"))
put("config_potts_alpha_fit", "inputs/plan/summary.json", built("stages/potts_alpha/quick_plan/summary.json"))

# Merges: configuration and inputs.
put("merge_perturb", "config.json", {"a": [0, 0.05], "seeds": [1, 2]})
for k, a in enumerate(["0", "0.05"]):
    for s in (1, 2):
        d = "stages/perturb/quick_a%s_s%d/" % (a, s)
        put("merge_perturb", "inputs/a%d_s%d/summary.json" % (k, s), built(d + "summary.json"))
        lines = built(d + "curves.csv").splitlines(True)
        put("merge_perturb", "inputs/a%d_s%d/curves.csv" % (k, s), "".join(lines[:4]))

put("merge_train", "config.json", {"models": ["factored", "vanilla1"], "seeds": [1, 2], "stall_tolerance": 0.005})
for m in ("factored", "vanilla1"):
    for s in (1, 2):
        d = "stages/train/quick_%s%s/" % (m, "" if s == 1 else "_s2")
        put("merge_train", "inputs/%s_s%d/summary.json" % (m, s), built(d + "summary.json"))
        put("merge_train", "inputs/%s_s%d/curves.csv" % (m, s), built(d + "curves.csv"))
        # The maps the merge scores (binary, copied; not mutated).
        shutil.copyfile(os.path.join(bin_dir, d + "params.h5"),
                        os.path.join(out, "merge_train", "inputs/%s_s%d/params.h5" % (m, s)))

put("merge_potts_alpha", "config.json", src("stages/potts_alpha/configs/merge.json"))
plan = json.loads(built("stages/potts_alpha/quick_plan/summary.json"))
plan["M_grid"] = plan["M_grid"][:3]
plan["realisations"] = 2
if "realisations_by_M" in plan:  # one count per M of the grid
    plan["realisations_by_M"] = [2] * len(plan["M_grid"])
put("merge_potts_alpha", "inputs/plan/summary.json", plan)
for c in range(plan["chunks"]):
    rows = list(csv.reader(io.StringIO(built("stages/potts_alpha/quick_chunk_%d/realisations.csv" % c))))
    keep = [r for r in rows[1:] if int(r[0]) in plan["M_grid"] and int(r[2]) < 2]
    put("merge_potts_alpha", "inputs/chunk%d/realisations.csv" % c,
        "".join(",".join(r) + "\n" for r in [rows[0]] + keep))

put("merge_gaussian", "config.json", src("stages/gaussian_sim/configs/merge.json"))
model = json.loads(built("stages/gaussian_sim/quick_model/summary.json"))
chunks_orig = model["chunks"]
model["sample_counts"] = model["sample_counts"][:3]
model["realisations"] = 2
model["chunks"] = 2
put("merge_gaussian", "inputs/model/summary.json", model)
rows = []
for c in range(chunks_orig):
    t = list(csv.reader(io.StringIO(built("stages/gaussian_sim/quick_chunk_%d/realisations.csv" % c))))
    header = t[0]
    rows += [r for r in t[1:] if int(float(r[2])) < 3 and int(float(r[3])) < 2]
for c in range(2):
    put("merge_gaussian", "inputs/chunk%d/realisations.csv" % c,
        "".join(",".join(r) + "\n" for r in [header] + rows[c::2]))

put("merge_diversity", "config.json", built("stages/diversity/configs/merge_quick.json"))
for k, h in enumerate((85, 60, 35)):
    put("merge_diversity", "inputs/p%d/summary.json" % k, built("stages/diversity/quick_fit_gaussian_%d/summary.json" % h))
print("corpus written to", out)
