#!/usr/bin/env bash
# The contact tool's score step at paper scale (configs/score.json) on the
# predictors the tool makes, here the quick DAG's (the same names and files):
# it scores each of them. The paper branch's configuration
# (configs/sweep_score.json) expects the heads sweep's coupling models and
# must refuse this set, naming the missing series; that is why the tool has
# its own. The predictor list and outputs are those of proteins/contacts.sh.
set -euo pipefail
score="$1" tool_config="$2" sweep_config="$3" stages="$4"
tmp="$TEST_TMPDIR/score"
mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

inputs=()
for f in train.h5 test.h5 train.aln columns.csv contacts.csv summary.json; do
  inputs+=(--in "family/$f=$stages/quick_pf00071/$f")
done
predictors=(factored_s1 vanilla1_s1 vanilla3_s1 plm cm_plm evfold psicov)
for p in "${predictors[@]}"; do
  inputs+=(--in "$p/scores.h5=$stages/quick_pf00071_$p/scores.h5" --in "$p/summary.json=$stages/quick_pf00071_$p/summary.json")
done
outs() {
  local d="$1" o
  for o in top_pairs.csv precision.csv curves.csv map_true.csv map_factored_hits.csv map_factored_misses.csv \
           map_plm_hits.csv map_plm_misses.csv summary.json; do
    printf -- '--out\n%s=%s/%s\n' "$o" "$d" "$o"
  done
}

mkdir -p "$tmp/tool"
mapfile -t o < <(outs "$tmp/tool")
"$score" --target //proteins:score_config_test --config "$tool_config" --seed 0 "${inputs[@]}" "${o[@]}" \
  --provenance "$tmp/tool/provenance.json" || fail "the tool's score.json cannot score the tool's predictors"
for p in factored vanilla1 vanilla3 plm cm_plm evfold psicov; do
  grep -q "^$p," "$tmp/tool/precision.csv" || fail "precision.csv has no row for $p"
done

mkdir -p "$tmp/sweep"
mapfile -t o < <(outs "$tmp/sweep")
if msg=$("$score" --target //proteins:score_config_test --config "$sweep_config" --seed 0 "${inputs[@]}" "${o[@]}" \
           --provenance "$tmp/sweep/provenance.json" 2>&1); then
  fail "sweep_score.json scored a set without the heads sweep"
fi
[[ "$msg" == *"sweep series"*"no input predictor starts with 'cm_"* ]] || fail "the refusal does not name the missing series: $msg"
echo "PASS"
