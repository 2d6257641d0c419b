#!/usr/bin/env bash
# The effect of the float products on factored attention trained as the
# observation trains it (the attention stage, attention/attn_h256.json): the same
# fit (seed, batches, start) with the products of eq. P1 in double and in
# float, one after the other on one core, on all of Ras's sequences. Reports
# each fit's CPU time, training loss and top-L, L/2, L/5 precision (scored
# by the project's code) and the largest difference of their contact
# scores, as one JSON object (--json FILE) and a Markdown table (stdout).
#   tools/bazel run //bench/proteins:attention_products [-- --steps N] [--seed S] [--json FILE]
# --steps N shortens both fits (default: the configuration's 5000 steps).
set -euo pipefail

steps=""
seed=1
json=""
die() { echo "attention_products: $*" >&2; exit 1; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --steps) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--steps: expected a positive whole number"; steps=$2; shift 2 ;;
    --seed) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--seed: expected a positive whole number"; seed=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (--help)" ;;
  esac
done
here=${BUILD_WORKING_DIRECTORY:-$PWD}
[[ -z $json || $json = /* ]] || json="$here/$json"
command -v python3 >/dev/null || die "python3 not found"
runfiles="${RUNFILES_DIR:-$0.runfiles}/potts_attention"
stage="$runfiles/stages/proteins/attention"
tool="$runfiles/bench/proteins/family_tool"
family="$runfiles/stages/proteins/paper_pf00071"
config="$runfiles/stages/proteins/configs/attention/attn_h256.json"
for f in "$stage" "$tool" "$family/train.h5" "$config"; do [[ -e $f ]] || die "$f: missing from the runfiles"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for products in double float; do
  python3 - "$config" "$products" "$steps" >"$work/$products.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["products"] = sys.argv[2]
if sys.argv[3]:
    c["steps"] = int(sys.argv[3])
c.pop("_comment", None)
print(json.dumps(c))
PY
  out="$work/$products"
  mkdir -p "$out"
  echo "attention_products: the fit with $products products ..." >&2
  ins=()
  for o in train.h5 test.h5 train.aln columns.csv contacts.csv summary.json; do ins+=(--in "family/$o=$family/$o"); done
  env -i OPENBLAS_NUM_THREADS=1 /usr/bin/time -f '%U %S' -o "$out/time" \
    "$stage" --target "//bench/proteins:attention_products" --config "$work/$products.json" --seed "$seed" "${ins[@]}" \
    $(for o in params.h5 scores.h5 curves.csv summary.json; do echo --out "$o=$out/$o"; done) \
    --provenance "$out/provenance.json" --threads 1 >"$out/log" 2>&1 || { tail "$out/log" >&2; die "the $products fit failed"; }
  "$tool" precision "$family" "$out/scores.h5" >"$out/precision.json"
done
"$tool" paired "$family" "$work/float/scores.h5" "$work/double/scores.h5" >"$work/paired.json"

python3 - "$work" "$json" "$seed" <<'PY'
import json, sys
work, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
res = {"seed": seed, "fits": {}}
for p in ("double", "float"):
    s = json.load(open(f"{work}/{p}/summary.json"))
    u, sy = open(f"{work}/{p}/time").read().split()
    prec = json.load(open(f"{work}/{p}/precision.json"))
    res["fits"][p] = {"cpu_s": float(u) + float(sy), "steps": s["adamw"]["steps"], "train_loss": s["train_loss"],
                      "test_loss": s["test_loss"], "objective": s["objective"], **prec}
res["float_minus_double"] = json.load(open(f"{work}/paired.json"))
d, f = res["fits"]["double"], res["fits"]["float"]
print("| products | CPU s | training loss | top-L | top-L/2 | top-L/5 |")
print("|---|---|---|---|---|---|")
for p in ("double", "float"):
    r = res["fits"][p]
    print(f"| {p} | {r['cpu_s']:.0f} | {r['train_loss']:.5f} | {r['top_L']:.3f} | {r['top_L2']:.3f} | {r['top_L5']:.3f} |")
pd = res["float_minus_double"]
print(f"\nfloat - double, top-L: {pd['difference']:+.4f} (paired s.e. {pd['standard_error']:.4f}); "
      f"CPU float/double: {f['cpu_s'] / d['cpu_s']:.2f}; {d['steps']} steps, seed {seed}")
if out:
    json.dump(res, open(out, "w"), indent=1)
PY
