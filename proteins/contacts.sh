#!/usr/bin/env bash
# //proteins:contacts: the proteins branch of the paper's DAG on a user's own
# alignment, outside Bazel's cache: prepare the family, train factored
# attention, one and three vanilla layers (seeds 1..N) and the
# pseudo-likelihood model on the training clusters, fit the weighted
# pseudo-likelihood model on every sequence (the contact tools' convention;
# --hold-out fits it on the training clusters too), factored attention as
# the observation's code trains it and the PLM on its conventions, and
# freecontact's baselines on every sequence (--models chooses among them),
# then score every predictor against a
# structure (table, contact map, precision curves) or, without one, list
# each predictor's top L pairs.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: tools/bazel run //proteins:contacts -- --msa FILE (--query NAME | --first-residue N)
                                             [--pdb FILE] [--out DIR] [--seeds N] [--models LIST]
                                             [--hold-out] [--quick]

  --msa FILE          the alignment: A2M/aligned FASTA with Pfam's insert convention
                      (lower case and '.' are insert columns), or a flat .aln file
                      (one aligned sequence per line, the query first)
  --query NAME        A2M: the query is the first sequence whose name starts with
                      NAME, e.g. RASH_HUMAN/ (its name must end in /start-end)
  --first-residue N   flat aln: the residue number of the query's first column
  --pdb FILE          a PDB file of the query: contacts are scored against it
  --out DIR           where to write (default: ./contacts_out)
  --seeds N           training seeds per model (default 3)
  --models LIST       the predictors to run, comma-separated (default: all of them):
                        factored, vanilla1, vanilla3  masked language models (seeds 1..N)
                        plm                           the PLM on the MLM models' data
                        cm_plm                        the weighted pseudo-likelihood model
                        attention                     factored attention as the observation's
                                                      code trains it (H = 256, d = 32, no fields,
                                                      5000 AdamW steps: the longest step)
                        plm_pad                       the PLM on the observation's conventions
                        evfold, psicov                freecontact's baselines
                      e.g. --models cm_plm,attention for the two contact models alone;
                      the contact map needs factored and plm
  --hold-out          fit the weighted pseudo-likelihood model (predictor cm_plm) on the
                      training clusters only, as the MLM models are (default: on every
                      sequence, as contact tools do; the MLM models' test loss always
                      comes from clusters they never saw; freecontact's EVfold and
                      PSICOV, which report no test loss, always fit every sequence)
  --quick             the test configurations (short runs), to try the tool out

Writes DIR/<step>/ for every step (each with its summary.json and provenance.json),
and DIR/top_pairs.csv; with --pdb also DIR/precision.csv and the figures
DIR/proteins_contacts.png, DIR/proteins_precision.png. Run again into the same
DIR, it keeps every step whose tool, configuration, seed and inputs are unchanged
(adding --pdb or --hold-out reruns only the steps they change).
USAGE
}

msa="" query="" first="" pdb="" out="contacts_out" seeds=3 prefix="" hold_out=0
all_models="factored,vanilla1,vanilla3,plm,cm_plm,attention,plm_pad,evfold,psicov"
models="$all_models"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --msa) msa="$2"; shift 2 ;;
    --query) query="$2"; shift 2 ;;
    --first-residue) first="$2"; shift 2 ;;
    --pdb) pdb="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --quick) prefix="quick_"; shift ;;
    --hold-out) hold_out=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "contacts: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
[[ -n "$msa" ]] || { echo "contacts: --msa FILE is required (--help)" >&2; exit 2; }
[[ -n "$query" || -n "$first" ]] || { echo "contacts: give --query NAME (A2M) or --first-residue N (aln)" >&2; exit 2; }
[[ "$seeds" =~ ^[1-9][0-9]*$ ]] || { echo "contacts: --seeds must be a positive integer, got '$seeds'" >&2; exit 2; }
IFS=, read -r -a chosen <<<"$models"
[[ ${#chosen[@]} -gt 0 ]] || { echo "contacts: --models: no predictor given (--help lists them)" >&2; exit 2; }
for m in "${chosen[@]}"; do
  [[ ",$all_models," == *",$m,"* ]] || { echo "contacts: --models: unknown predictor '$m' (one of $all_models)" >&2; exit 2; }
done
wants() { [[ ",$models," == *",$1,"* ]]; }

# Paths given by the user are relative to where they ran `bazel run`.
here="${BUILD_WORKING_DIRECTORY:-$PWD}"
abs() { [[ "$1" = /* ]] && echo "$1" || echo "$here/$1"; }
msa="$(abs "$msa")"
[[ -f "$msa" ]] || { echo "contacts: --msa: no such file: $msa" >&2; exit 2; }
if [[ -n "$pdb" ]]; then pdb="$(abs "$pdb")"; [[ -f "$pdb" ]] || { echo "contacts: --pdb: no such file: $pdb" >&2; exit 2; }; fi
out="$(abs "$out")"
mkdir -p "$out"

runfiles="${RUNFILES_DIR:-$0.runfiles}/potts_attention"
bin="$runfiles/stages/proteins"
configs="$runfiles/stages/proteins/configs"
figures="$runfiles/stages/figures"

# One stage: run NAME TOOL CONFIG SEED OUTS... with inputs in $inputs. A
# step whose tool, configuration, seed, inputs (by SHA-256) and outputs are
# those of its last complete run in DIR is kept, not rerun: its key is
# written after the stage succeeds (DIR/<step>/.key), removed before it runs.
run() {
  local name="$1" tool="$2" config="$3" seed="$4"; shift 4
  local dir="$out/$name" args=() key spec o complete=1
  mkdir -p "$dir"
  for o in "$@"; do args+=(--out "$o=$dir/$o"); [[ -f "$dir/$o" ]] || complete=0; done
  key=$({
    sha256sum "$tool" "$config" | cut -d' ' -f1
    echo "seed $seed outs $*"
    for spec in "${inputs[@]}"; do
      [[ $spec == --in ]] && continue
      echo "${spec%%=*} $(sha256sum "${spec#*=}" | cut -d' ' -f1)"
    done
  } | sha256sum | cut -d' ' -f1)
  if [[ $complete -eq 1 && -f "$dir/provenance.json" && -f "$dir/.key" && "$(<"$dir/.key")" == "$key" ]]; then
    echo "contacts: $name (unchanged since its last run: kept)" >&2
    return 0
  fi
  rm -f "$dir/.key"
  echo "contacts: $name" >&2
  "$tool" --target "//proteins:contacts/$name" --config "$config" --seed "$seed" "${inputs[@]}" "${args[@]}" \
    --provenance "$dir/provenance.json"
  echo "$key" >"$dir/.key.tmp" && mv "$dir/.key.tmp" "$dir/.key"
}
family_inputs() {
  inputs=()
  for f in train.h5 test.h5 train.aln columns.csv contacts.csv summary.json; do
    inputs+=(--in "family/$f=$out/family/$f")
  done
}

# 1. The family. Format by extension; the test configs' split and cutoffs.
format=a2m
[[ "$msa" == *.aln ]] && format=aln
prepare_config="$out/family.config.json"
{
  echo "{"
  echo "  \"format\": \"$format\","
  if [[ "$format" == a2m ]]; then echo "  \"query\": \"$query\","; else echo "  \"first_residue\": ${first:-1},"; fi
  echo "  \"identity\": 0.8, \"test_fraction\": 0.2, \"contact_cutoff\": 8.0, \"min_separation\": 6"
  echo "}"
} > "$prepare_config"
inputs=(--in "msa/$(basename "$msa")=$msa")
[[ -n "$pdb" ]] && inputs+=(--in "structure/$(basename "$pdb")=$pdb")
run family "$bin/prepare" "$prepare_config" 1 train.h5 test.h5 train.aln columns.csv contacts.csv summary.json

# 2. The models and baselines chosen by --models.
family_inputs
score_inputs=("${inputs[@]}")
add_score_inputs() { score_inputs+=(--in "$1/scores.h5=$out/$1/scores.h5" --in "$1/summary.json=$out/$1/summary.json"); }
for model in factored vanilla1 vanilla3; do
  wants "$model" || continue
  for seed in $(seq 1 "$seeds"); do
    family_inputs
    run "${model}_s$seed" "$bin/train" "$configs/$prefix$model.json" "$seed" params.h5 scores.h5 curves.csv summary.json
    add_score_inputs "${model}_s$seed"
  done
done
if wants plm; then
  family_inputs
  run plm "$bin/plm" "$configs/${prefix}plm.json" 0 params.h5 scores.h5 curves.csv summary.json
  add_score_inputs plm
fi
# The weighted PLM of the coupling models (couplings stage), on every
# sequence unless --hold-out.
if wants cm_plm; then
  cm_config="$configs/${prefix}cm_plm.json"
  if [[ $hold_out -eq 1 ]]; then
    cm_config="$out/cm_plm.config.json"
    sed 's/"fit_on": "all"/"fit_on": "train"/' "$configs/${prefix}cm_plm.json" > "$cm_config"
    grep -q '"fit_on": "train"' "$cm_config" || { echo "contacts: $configs/${prefix}cm_plm.json has no fit_on" >&2; exit 1; }
  fi
  family_inputs
  run cm_plm "$bin/couplings" "$cm_config" 0 params.h5 scores.h5 curves.csv summary.json
  add_score_inputs cm_plm
fi
# The observation's model (the attention stage) and its Potts baseline (the
# plm_pad stage), on every sequence: the command its repository gives (--quick: 4 heads, 40 steps).
attention_step=cm_attn_nofields_h256_s1 attention_config="$configs/attention/attn_nofields_h256.json"
[[ -n "$prefix" ]] && attention_step=cm_attn_h4_s1 attention_config="$configs/attention/quick_attn_h4.json"
if wants attention; then
  family_inputs
  run "$attention_step" "$bin/attention" "$attention_config" 1 params.h5 scores.h5 curves.csv summary.json
  add_score_inputs "$attention_step"
fi
if wants plm_pad; then
  family_inputs
  run cm_plm_pad "$bin/plm_pad" "$configs/${prefix}plm_pad.json" 0 params.h5 scores.h5 curves.csv summary.json
  add_score_inputs cm_plm_pad
fi
for profile in evfold psicov; do
  wants "$profile" || continue
  family_inputs
  run "$profile" "$bin/freecontact" "$configs/$profile.json" 0 freecontact.txt scores.h5 summary.json
  add_score_inputs "$profile"
done

# 3. Scores: against the structure, or the top pairs alone.
inputs=("${score_inputs[@]}")
if [[ -n "$pdb" ]]; then
  maps=() figures_made=(proteins_precision)
  if wants factored && wants plm; then
    maps=(map_factored_hits.csv map_factored_misses.csv map_plm_hits.csv map_plm_misses.csv)
    figures_made=(proteins_contacts proteins_precision)
  fi
  run score "$bin/score" "$configs/${prefix}score.json" 0 top_pairs.csv precision.csv curves.csv map_true.csv \
    "${maps[@]}" summary.json
  cp "$out/score/precision.csv" "$out/precision.csv"
  for fig in "${figures_made[@]}"; do
    inputs=(--in "script/$fig.gp=$figures/scripts/$fig.gp" --in "common/common.gp=$figures/scripts/common.gp")
    for f in "$out"/family/*; do inputs+=(--in "family/$(basename "$f")=$f"); done
    for f in "$out"/score/*; do inputs+=(--in "proteins/$(basename "$f")=$f"); done
    run "$fig" "$runfiles/stages/figures/figures" "$figures/configs/$fig.json" 0 "$fig.png" "$fig.pdf" "$fig.dat" summary.json
    cp "$out/$fig/$fig.png" "$out/$fig.png"
  done
else
  run score "$bin/score" "$configs/${prefix}score.json" 0 top_pairs.csv summary.json
fi
cp "$out/score/top_pairs.csv" "$out/top_pairs.csv"
echo "contacts: done; results in $out" >&2
