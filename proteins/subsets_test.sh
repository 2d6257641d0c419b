#!/usr/bin/env bash
# Every subset of predictors makes what it can and skips the rest with a
# note: each argument is NAME:LIST, the reports //proteins:subset_NAME_pdb
# and _nopdb (contact_report, on the quick family's fits). With a structure:
# the precision table, curves and figure, the contact map only when factored
# and plm are both chosen (else a note says so); without: top_pairs.csv and
# a note. Always: every run's .mat (L rows of L numbers after the residue
# line) and .rr (CASP RR: PFRMAT RR ... END, pairs i < j, |i - j| >= 6).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
base="$TEST_SRCDIR/$TEST_WORKSPACE/proteins"
for arg in "$@"; do
  name=${arg%%:*} list=${arg#*:}
  for pdb in pdb nopdb; do
    r="$base/subset_${name}_$pdb"
    top="${r}_score/top_pairs.csv"
    [[ -s $top ]] || fail "$name ($pdb): no top_pairs.csv"
    # The predictors listed are the chosen ones (run keys without seeds).
    got=$(tail -n +2 "$top" | cut -d, -f1 | sort -u | tr '\n' ' ')
    runs=$(tail -n +2 "$top" | cut -d, -f1,2 | sort -u | wc -l)
    n=$(tr ',' '\n' <<<"$list" | wc -l)
    [[ $(wc -w <<<"$got") -eq $n ]] || fail "$name ($pdb): top_pairs.csv lists '$got' for --models $list"
    notes=$(cat "${r}_notes.json")
    if [[ $pdb == pdb ]]; then
      for f in precision.csv curves.csv; do [[ -s ${r}_score/$f ]] || fail "$name: no $f with a structure"; done
      [[ -s ${r}_precision/subset_${name}_pdb_precision.png ]] || fail "$name: no precision figure"
      if [[ ,$list, == *,factored,* && ,$list, == *,plm,* ]]; then
        [[ -s ${r}_contacts/subset_${name}_pdb_contacts.png ]] || fail "$name: no contact map with factored and plm"
      else
        [[ ! -e ${r}_contacts ]] || fail "$name: a contact map without factored and plm"
        grep -q "contact map" <<<"$notes" || fail "$name: no note on the skipped contact map: $notes"
      fi
    else
      [[ ! -e ${r}_score/precision.csv && ! -e ${r}_precision ]] || fail "$name: precision without a structure"
      grep -q "no structure" <<<"$notes" || fail "$name (nopdb): no note on what a structure would add: $notes"
    fi
    mats=("${r}_export"/*.mat)
    [[ ${#mats[@]} -eq $runs ]] || fail "$name ($pdb): ${#mats[@]} .mat files for $runs runs"
    for m in "${mats[@]}"; do
      L=$(head -1 "$m" | wc -w)
      L=$((L - 2))  # "# residues" then L numbers
      [[ $(tail -n +2 "$m" | wc -l) -eq $L ]] || fail "$m: not $L rows"
      awk -v L="$L" 'NR > 1 && NF != L { exit 1 }' "$m" || fail "$m: a row without $L numbers"
      rr="${m%.mat}.rr"
      [[ $(head -1 "$rr") == "PFRMAT RR" && $(tail -1 "$rr") == "END" ]] || fail "$rr: not CASP RR"
      awk '$3 == 0 && $4 == 8 { if (!($1 < $2 && $2 - $1 >= 6 && $5 >= 0 && $5 <= 1)) bad = 1; n++ }
           END { exit (bad || n == 0) }' "$rr" || fail "$rr: a pair out of order, too close or with p outside [0, 1]"
    done
    echo "$name ($pdb): $(ls "${r}_export" | grep -c '\.rr$') runs exported; ${notes//$'\n'/ }"
  done
done
echo "subsets_test: ok"
