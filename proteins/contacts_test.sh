#!/usr/bin/env bash
# //proteins:contacts end to end, its builds in a nested Bazel on this tree
# (its own output base, compiles from the outer build's disk cache:
# tests/util/nested_bazel.sh):
#   1. bad arguments stop with a message naming what is wrong, before Bazel;
#   2. Debian's freecontact example demo_1000.aln without a structure, every
#      predictor at quick scale: each lists its top L pairs unscored, each
#      run has its .mat and .rr, each step its record, and the skip is said;
#   3. the same with --hold-out: only the weighted PLM and what reads it
#      run again (Bazel's cache keeps the rest, records and all);
#   4. Ras (PF00071) written as A3M by this test against PDB 121P, the
#      README's kind of choice (cm_plm,evfold): converted from A3M, scored,
#      the precision table and figure written, the contact map skipped with
#      a line saying why.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
work="${TEST_TMPDIR:?run under bazel test}"
r="$TEST_SRCDIR/$TEST_WORKSPACE"
tool="$r/proteins/contacts"
aln="$r/external/freecontact_examples/demo_1000.aln"
fa="$r/external/freecontact_examples/PF00071_v25_999.fa"
pdb="$r/third_party/pdb/121p.pdb"
# shellcheck source=tests/util/nested_bazel.sh
source "$r/tests/util/nested_bazel.sh"
root=$(nested_workspace_root) || fail "the nested build's workspace (above)"
export POTTS_CONTACTS_WORKSPACE="$root"
export POTTS_CONTACTS_STARTUP_FLAGS="--output_base=$work/ob"
export POTTS_CONTACTS_BUILD_FLAGS="--symlink_prefix=/ ${OUTER_CACHE_FLAGS[*]} --define=stage_code_version=off"
cleanup() {
  (cd "$root" && tools/bazel --output_base="$work/ob" shutdown) >/dev/null 2>&1 || true
  chmod -R u+w "$work/ob" 2>/dev/null || true
  rm -rf "$work/ob"
}
trap cleanup EXIT
contacts() { env ${OUTER_ENV[@]+"${OUTER_ENV[@]}"} "$tool" "$@"; }

# 1. Bad arguments: a clear message and exit status 2, nothing built.
expect_refusal() {  # expect_refusal WORDS ARGS...
  local words=$1 msg
  shift
  if msg=$(contacts "$@" 2>&1); then fail "accepted: $*"; fi
  [[ $msg == *"$words"* ]] || fail "'$*': the message does not say '$words': $msg"
}
expect_refusal "--first-residue" --msa "$aln"
expect_refusal "/no/such.aln" --msa /no/such.aln --first-residue 1
expect_refusal "--seeds must be" --msa "$aln" --first-residue 1 --seeds x
expect_refusal "unknown predictor 'nonsense'" --msa "$aln" --first-residue 1 --models cm_plm,nonsense
expect_refusal "--query NAME" --msa "$fa"
help=$(contacts --help)
grep -q -- "--pdb FILE" <<<"$help" || fail "--help does not list --pdb"
grep -q "psicov" <<<"$help" || fail "--help does not list the predictors"
echo "bad arguments refused"

# 2. Every predictor, no structure.
out="$work/demo"
t=$SECONDS
contacts --msa "$aln" --first-residue 1 --out "$out" --seeds 1 --quick 2>"$work/demo.log" ||
  { tail -30 "$work/demo.log" >&2; fail "the run on demo_1000.aln failed"; }
echo "demo_1000.aln, every predictor: $((SECONDS - t)) s"
top="$out/top_pairs.csv"
[[ $(head -1 "$top") == "predictor,seed,rank,i,j,score,contact" ]] || fail "header of $top"
L=$(awk -F, 'NR > 1 && $1 == "plm" {n++} END {print n}' "$top")
[[ $L == "$(awk 'NR == 1 {print length($0)}' "$aln")" ]] || fail "plm lists $L pairs, expected L"
for p in factored vanilla1 vanilla3 plm cm_plm cm_attn_h4 cm_plm_pad evfold psicov; do
  grep -q "^$p," "$top" || fail "no pairs of $p"
done
awk -F, 'NR > 1 && ($7 != "" || ($5 - $4 < 6 && $4 - $5 < 6)) {exit 1}' "$top" || fail "a scored or too-close pair"
for run in factored_s1 vanilla1_s1 vanilla3_s1 plm cm_plm cm_attn_h4_s1 cm_plm_pad evfold psicov; do
  [[ -f $out/$run/provenance.json ]] || fail "no provenance record for $run"
  [[ $(head -1 "$out/$run.rr") == "PFRMAT RR" ]] || fail "no RR file for $run"
  [[ $(tail -n +2 "$out/$run.mat" | wc -l) -eq $L ]] || fail "$run.mat has not L = $L rows"
done
grep -q "skipped: no structure" "$work/demo.log" || fail "the skipped precision and map are not said"
n_all=$(grep -o '"sequences": [0-9]*' "$out/family/summary.json" | grep -o '[0-9]*$')
n_train=$(grep -o '"train_sequences": [0-9]*' "$out/family/summary.json" | grep -o '[0-9]*$')
grep -q "\"fit_sequences\": $n_all\b" "$out/cm_plm/summary.json" || fail "cm_plm did not fit all $n_all sequences"

# 3. --hold-out: the weighted PLM on the training clusters; the rest kept.
psicov_record=$(sha256sum <"$out/psicov/provenance.json")
contacts --msa "$aln" --first-residue 1 --out "$out" --seeds 1 --quick --hold-out 2>"$work/held.log" ||
  { tail -30 "$work/held.log" >&2; fail "the --hold-out run failed"; }
grep -q "\"fit_sequences\": $n_train\b" "$out/cm_heldout_plm/summary.json" ||
  fail "--hold-out: the weighted PLM did not fit the $n_train training sequences"
[[ $n_train -lt $n_all ]] || fail "the family has no held-out sequences ($n_train of $n_all)"
[[ $(sha256sum <"$out/psicov/provenance.json") == "$psicov_record" ]] || fail "--hold-out reran psicov (its record changed)"
ran=$(grep -o "From Stage //proteins/user:user[a-z0-9_]*" "$work/held.log" | sed 's/.*://' | sort -u | tr '\n' ' ')
[[ $ran == "user_cm_heldout_plm user_export user_score " ]] || fail "--hold-out ran: $ran"
echo "--hold-out reran $ran"

# 4. Ras as A3M, with its structure, two predictors.
python3 - "$fa" "$work/ras.a3m" <<'PY'
import sys
rows = []
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    if line[0] == ">":
        rows.append([line, ""])
    else:
        rows[-1][1] += line
query = rows[0][1]
with open(sys.argv[2], "w") as f:
    for r, (name, seq) in enumerate(rows):
        out, m = [], 0
        for c, x in enumerate(seq):
            if query[c].isupper():
                out.append(x.upper() if x.isalpha() else "-")
                m += 1
                if m == 50 and r % 7 == 3:
                    out.append("gkq")  # an insertion: rows now differ in length
            elif x.isalpha():
                out.append(x.lower())
        f.write(name + "\n" + "".join(out) + "\n")
PY
ras="$work/ras"
contacts --msa "$work/ras.a3m" --query RASH_HUMAN/ --pdb "$pdb" --out "$ras" --quick --models cm_plm,evfold \
  2>"$work/ras.log" || { tail -30 "$work/ras.log" >&2; fail "the A3M run failed"; }
grep -q '"converted_from_a3m": true' "$ras/msa/provenance.json" || fail "the A3M file was not converted"
grep -q '"L": 159' "$ras/family/summary.json" || fail "Ras from A3M: not the 159 match columns of its A2M"
for f in precision.csv precision.png cm_plm.rr evfold.mat; do [[ -s $ras/$f ]] || fail "Ras: no $f"; done
[[ ! -e $ras/contacts.png ]] || fail "a contact map without factored and plm"
grep -q "skipped: the contact map" "$work/ras.log" || fail "the skipped contact map is not said"
awk -F, 'NR > 1 && $7 == "" {exit 1}' "$ras/top_pairs.csv" || fail "an unscored pair with a structure"
echo "Ras as A3M scored against 121P: top-L $(grep -m1 'cm_plm,0,counted,6+,L,' "$ras/precision.csv" | cut -d, -f7)"
echo "contacts_test: ok"
