#!/usr/bin/env bash
# proteins/rescore.py, the independent rescoring, agrees with the score
# stage on the quick Ras branch (every predictor, against 121P) and on the
# panel's quick family (EVfold, against 1CTF chain A); and it notices a
# wrong contact count.
set -euo pipefail
rescore="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
runs_of() {  # runs_of PREFIX: RUN=scores.h5 for every run stage of a branch
  local d n
  for d in "$1"_*/; do
    d=${d%/}
    n=${d#"$1"_}
    [[ -f $d/scores.h5 && $n != score ]] && echo "$n=$d/scores.h5"
  done
}
s=stages/proteins
mapfile -t ras < <(runs_of $s/quick_pf00071)
[[ ${#ras[@]} -ge 5 ]] || fail "found only ${#ras[@]} quick Ras runs"
/usr/bin/python3 "$rescore" --columns $s/quick_pf00071/columns.csv --structure third_party/pdb/121p.pdb \
  --summary $s/quick_pf00071_score/summary.json "${ras[@]}"
/usr/bin/python3 "$rescore" --columns $s/quick_panel_pf00542/columns.csv --chain A \
  --structure third_party/covariation/input/domains/PF00542/1CTF_A.pdb \
  --summary $s/quick_panel_pf00542_score/summary.json "evfold=$s/quick_panel_pf00542_evfold/scores.h5"
# A summary with one contact more must be caught.
sed 's/"contacts": \([0-9]*\)/"contacts": 1\1/' $s/quick_panel_pf00542_score/summary.json >"$TEST_TMPDIR/wrong.json"
if /usr/bin/python3 "$rescore" --columns $s/quick_panel_pf00542/columns.csv --chain A \
    --structure third_party/covariation/input/domains/PF00542/1CTF_A.pdb \
    --summary "$TEST_TMPDIR/wrong.json" "evfold=$s/quick_panel_pf00542_evfold/scores.h5" >"$TEST_TMPDIR/out" 2>&1; then
  fail "a wrong contact count passed"
fi
echo "rescore_test: ok"
