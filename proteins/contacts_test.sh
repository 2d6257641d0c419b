#!/usr/bin/env bash
# //proteins:contacts on an alignment without a structure (Debian's
# freecontact example demo_1000.aln, quick configurations, one seed): every
# step runs, each predictor lists its top L pairs unscored; rerun with
# --hold-out into the same directory, only the weighted PLM and the scores
# run again; --models runs only the predictors it names; bad arguments stop
# with a message naming what is wrong.
set -euo pipefail
tool="$1"
aln="$2"
out="$TEST_TMPDIR/contacts"

fail() { echo "FAIL: $*" >&2; exit 1; }

# Bad arguments: a clear message and exit status 2, nothing run.
if msg=$("$tool" --msa "$aln" 2>&1); then fail "no error without --query/--first-residue"; fi
[[ "$msg" == *"--first-residue"* ]] || fail "the message does not say what is missing: $msg"
if msg=$("$tool" --msa /no/such.aln --first-residue 1 2>&1); then fail "no error for a missing file"; fi
[[ "$msg" == *"/no/such.aln"* ]] || fail "the message does not name the file: $msg"
if msg=$("$tool" --msa "$aln" --first-residue 1 --seeds x 2>&1); then fail "no error for --seeds x"; fi
"$tool" --help | grep -q -- "--pdb FILE" || fail "--help does not list --pdb"

"$tool" --msa "$aln" --first-residue 1 --out "$out" --seeds 1 --quick
top="$out/top_pairs.csv"
[[ -f "$top" ]] || fail "no top_pairs.csv"
[[ "$(head -1 "$top")" == "predictor,seed,rank,i,j,score,contact" ]] || fail "header of $top"
L=$(awk -F, 'NR > 1 && $1 == "plm" {n++} END {print n}' "$top")
cols=$(awk 'NR == 1 {print length($0)}' "$aln")
[[ "$L" == "$cols" ]] || fail "plm lists $L pairs, expected L = $cols"
for p in factored vanilla1 vanilla3 plm cm_plm cm_attn_h4 cm_plm_pad evfold psicov; do
  grep -q "^$p," "$top" || fail "no pairs of $p"
done
# Unscored: the contact column is empty; every pair is |i - j| >= 6.
awk -F, 'NR > 1 && ($7 != "" || ($5 - $4 < 6 && $4 - $5 < 6)) {exit 1}' "$top" || fail "a scored or too-close pair"
for step in family factored_s1 vanilla1_s1 vanilla3_s1 plm cm_plm cm_attn_h4_s1 cm_plm_pad evfold psicov score; do
  [[ -f "$out/$step/provenance.json" ]] || fail "no provenance record for $step"
done
# The weighted PLM sees every sequence by default, the training clusters
# with --hold-out (the family's split: train + test = all).
n_all=$(grep -o '"sequences": [0-9]*' "$out/family/summary.json" | grep -o '[0-9]*$')
n_train=$(grep -o '"train_sequences": [0-9]*' "$out/family/summary.json" | grep -o '[0-9]*$')
grep -q "\"fit_sequences\": $n_all\b" "$out/cm_plm/summary.json" || fail "cm_plm did not fit all $n_all sequences"
# The same run with --hold-out into the same directory: only the weighted
# PLM and what reads it (the scores) run again; every other step is kept.
psicov_record=$(sha256sum "$out/psicov/provenance.json")
"$tool" --msa "$aln" --first-residue 1 --out "$out" --seeds 1 --quick --hold-out 2>"$TEST_TMPDIR/held.log" ||
  { cat "$TEST_TMPDIR/held.log" >&2; fail "the --hold-out run failed"; }
grep -q "\"fit_sequences\": $n_train\b" "$out/cm_plm/summary.json" || fail "--hold-out: cm_plm did not fit the $n_train training sequences"
[[ "$n_train" -lt "$n_all" ]] || fail "the family has no held-out sequences ($n_train of $n_all)"
for step in family factored_s1 vanilla1_s1 vanilla3_s1 plm cm_attn_h4_s1 cm_plm_pad evfold psicov; do
  grep -qx "contacts: $step (unchanged since its last run: kept)" "$TEST_TMPDIR/held.log" || fail "--hold-out reran $step"
done
for step in cm_plm score; do
  grep -qx "contacts: $step" "$TEST_TMPDIR/held.log" || fail "--hold-out did not rerun $step"
done
[[ $(sha256sum "$out/psicov/provenance.json") == "$psicov_record" ]] || fail "a kept step's record changed"
# --models: only the chosen predictors run and are listed; a name the tool
# does not know stops it before anything runs.
if msg=$("$tool" --msa "$aln" --first-residue 1 --models cm_plm,nonsense 2>&1); then fail "no error for --models nonsense"; fi
[[ "$msg" == *"unknown predictor 'nonsense'"* ]] || fail "the message does not name the predictor: $msg"
two="$TEST_TMPDIR/two"
"$tool" --msa "$aln" --first-residue 1 --out "$two" --quick --models cm_plm,attention 2>/dev/null
ran=$(cd "$two" && ls -d */ | tr -d / | sort | tr '\n' ' ')
[[ "$ran" == "cm_attn_h4_s1 cm_plm family score " ]] || fail "--models cm_plm,attention ran: $ran"
listed=$(awk -F, 'NR > 1 {print $1}' "$two/top_pairs.csv" | sort -u | tr '\n' ' ')
[[ "$listed" == "cm_attn_h4 cm_plm " ]] || fail "--models cm_plm,attention listed: $listed"
echo "contacts_test: ok"
