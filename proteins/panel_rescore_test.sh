#!/usr/bin/env bash
# The committed panel (results/proteins/paper_panel_*), rescored
# independently: for each of the covariation benchmark's 40 families,
# proteins/rescore.py computes the contacts anew from the family's structure
# (the chain its file names) and the top-L precisions from every
# predictor's committed score matrix, and must agree with the family's
# committed score summary; the panel's table must carry those summaries'
# numbers. A family missing from results/ fails.
set -euo pipefail
rescore="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
r=results/proteins
families=0
for d in $r/paper_panel_pf?????/; do
  d=${d%/}
  structure=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["structure"])' "$d/summary.json")
  chain=${structure%.pdb}
  chain=${chain##*_}
  runs=()
  for run in evfold psicov cm_plm cm_plm_pad cm_attn_nofields_h256_s1; do
    [[ -f ${d}_$run/scores.h5 ]] || fail "$d: no committed scores for $run"
    runs+=("$run=${d}_$run/scores.h5")
  done
  /usr/bin/python3 "$rescore" --columns "$d/columns.csv" --structure "$structure" --chain "$chain" \
    --summary "${d}_score/summary.json" "${runs[@]}" || fail "$d: the rescoring disagrees"
  families=$((families + 1))
done
[[ $families -eq 40 ]] || fail "rescored $families families, expected the panel's 40"
/usr/bin/python3 - "$r" <<'PY'
import csv, json, sys
r = sys.argv[1]
roles = {"attention": "cm_attn_nofields_h256", "plm": "cm_plm_pad", "weighted_plm": "cm_plm",
         "evfold": "evfold", "psicov": "psicov"}
rows = list(csv.DictReader(open(f"{r}/paper_panel/panel.csv")))
if len(rows) != 40:
    sys.exit(f"FAIL: panel.csv has {len(rows)} families")
for row in rows:
    pfam = "pf%05d" % int(float(row["pfam"]))
    s = json.load(open(f"{r}/paper_panel_{pfam}_score/summary.json"))
    for role, key in roles.items():
        for col, k in [("L", "L"), ("L2", "L/2"), ("L5", "L/5")]:
            want = s["predictors"][key]["precision"]["6+"][k]["mean"]
            if abs(float(row[f"{role}_{col}"]) - want) > 1e-9:
                sys.exit(f"FAIL: panel.csv {pfam} {role}_{col} = {row[f'{role}_{col}']}, its score summary {want}")
print("panel.csv: 40 families, every role's precision is its score summary's")
PY
echo "panel_rescore_test: ok ($families families)"
