#!/usr/bin/env bash
# The weighted pseudo-likelihood model (couplings stage, cm_plm.json) against
# freecontact's EVfold and PSICOV on the same family, the same machine, one
# after another in one run, each on one thread and on every sequence of the
# paper's PF00071 family; then the same PLM on the 799 training sequences
# (cm_heldout_plm.json), the size at which other PLM codes are often timed.
# Prints wall and CPU seconds per run, their ratios to the PLM's, and each
# PLM fit's objective evaluations and seconds per evaluation (from its
# provenance record); --json FILE also writes them.
#   tools/bazel run //bench/proteins:contact_tools [-- --json FILE]
# Run it on an otherwise idle machine: the times are what it measures.
set -euo pipefail

json=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --json) json="$2"; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "contact_tools: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
[[ -z $json || $json = /* ]] || json="${BUILD_WORKING_DIRECTORY:-$PWD}/$json"

runfiles="${RUNFILES_DIR:-$0.runfiles}/potts_attention"
stages="$runfiles/stages/proteins"
family="$stages/paper_pf00071"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inputs=()
for f in train.h5 test.h5 train.aln columns.csv contacts.csv summary.json; do
  [[ -f $family/$f ]] || { echo "contact_tools: $family/$f missing (the prepare stage's output)" >&2; exit 1; }
  inputs+=(--in "family/$f=$family/$f")
done

# run NAME TOOL CONFIG OUTS...: one stage, timed; "<wall> <user> <sys>" in $work/NAME.time.
run() {
  local name="$1" tool="$2" config="$3"; shift 3
  local args=() o
  mkdir -p "$work/$name"
  for o in "$@"; do args+=(--out "$o=$work/$name/$o"); done
  echo "contact_tools: $name ..." >&2
  local TIMEFORMAT="%R %U %S"
  { time OPENBLAS_NUM_THREADS=1 "$tool" --target "//bench/proteins:$name" --config "$config" --seed 0 \
      "${inputs[@]}" "${args[@]}" --provenance "$work/$name/provenance.json" >/dev/null 2>"$work/$name.log"; } \
    2>"$work/$name.time" || { cat "$work/$name.log" >&2; echo "contact_tools: $name failed" >&2; exit 1; }
}

run cm_plm "$stages/couplings" "$stages/configs/cm_plm.json" params.h5 scores.h5 curves.csv summary.json
run evfold "$stages/freecontact" "$stages/configs/evfold.json" freecontact.txt scores.h5 summary.json
run psicov "$stages/freecontact" "$stages/configs/psicov.json" freecontact.txt scores.h5 summary.json
run cm_plm_train "$stages/couplings" "$stages/configs/cm_heldout_plm.json" params.h5 scores.h5 curves.csv summary.json

field() { grep -o "\"$2\": [0-9.e+-]*" "$1" | head -1 | awk '{print $2}'; }
read -r _ plm_user plm_sys <"$work/cm_plm.time"
plm_cpu=$(awk -v u="$plm_user" -v s="$plm_sys" 'BEGIN { print u + s }')

echo "one thread per run, $(nproc) hardware threads, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
printf '%-12s %10s %10s %14s\n' run wall_s cpu_s cpu_vs_cm_plm
out_json="{\"tools\": {"
sep=""
for name in cm_plm evfold psicov cm_plm_train; do
  read -r wall user sys <"$work/$name.time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
  ratio=$(awk -v c="$cpu" -v p="$plm_cpu" 'BEGIN { printf "%.2f", c / p }')
  printf '%-12s %10.1f %10.1f %14s\n' "$name" "$wall" "$cpu" "$ratio"
  out_json+="$sep\"$name\": {\"wall_seconds\": $wall, \"cpu_seconds\": $cpu, \"cpu_ratio_to_cm_plm\": $ratio"
  if [[ $name = cm_plm* ]]; then
    evals=$(field "$work/$name/summary.json" evaluations)
    per_eval=$(field "$work/$name/provenance.json" seconds_per_evaluation)
    seqs=$(field "$work/$name/summary.json" fit_sequences)
    echo "$name: $seqs sequences, $evals objective evaluations, $per_eval s per evaluation"
    out_json+=", \"sequences\": $seqs, \"evaluations\": $evals, \"seconds_per_evaluation\": $per_eval"
  fi
  out_json+="}"
  sep=", "
done
out_json+="}, \"machine\": \"$(nproc) hardware threads\"}"
if [[ -n $json ]]; then
  echo "$out_json" >"$json.tmp" && mv "$json.tmp" "$json"
  echo "contact_tools: wrote $json" >&2
fi
