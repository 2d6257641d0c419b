#!/usr/bin/env bash
# CCMpred against the project's weighted pseudo-likelihood fit (the couplings
# stage, cm_plm.json), side by side in one run: the same sequences, one core
# each (both pinned to the same core, one after the other), interleaved over
# ROUNDS rounds (the order alternates by round). Families: Ras (PF00071) on
# its 799 training sequences (cm_heldout_plm.json) and on all 999
# (cm_plm.json), and CCMpred's own example 1atzA (3068 sequences, 75 columns;
# no structure here: time and memory only), prepared by the prepare stage.
# Reports CPU (user + system), wall time, objective evaluations (the PLM) or
# iterations (CCMpred) and peak resident memory as min / median / max, the
# ratio of the medians, and for Ras the top-L, L/2 and L/5 precision of both,
# scored by the project's own code against the same contacts, and the share
# of top-L pairs the two programs agree on. --threads LIST (default 1) runs
# each family at each thread count K of the comma-separated LIST ("all": this
# machine's cores): both programs pinned to cores CORE..CORE+K-1, the PLM with
# --threads K and CCMpred with -t K (//bench/proteins:contacts_compare runs
# --threads 1,all).
#   tools/bazel run //bench/proteins:ccmpred_compare [-- --rounds N] [--json FILE] [--doc FILE]
#       [--couplings PATH] [--ccmpred-sources DIR] [--threads LIST] [--marker NAME] [--families LIST]
#       [--no-peer]
# --families LIST: some of ras799,ras999,atz (default all three). --no-peer
# runs the PLM alone, up to where CCMpred would run (the smoke test).
# --doc FILE replaces the table between the markers "<!-- ccmpred_compare:
# begin -->" and "<!-- ccmpred_compare: end -->" of FILE (docs/performance.md);
# --marker NAME uses "<!-- NAME: begin -->" and "<!-- NAME: end -->" instead.
# --couplings PATH times another build of the couplings stage, e.g. one with
# its kernels pinned to AVX2: tools/bazel build //bench/proteins:couplings_avx2,
# then --couplings bazel-bin/bench/proteins/couplings_avx2.
# CCMpred: CCMPRED=/path/to/ccmpred, or built once from --ccmpred-sources DIR
# (a folder with CCMpred's and libconjugrad's source archives) by
# build_ccmpred.sh into ~/.cache/potts_attention_peers/ccmpred_omp, with its
# OpenMP loops compiled (CCMpred's own CMake build leaves them serial, so its
# -t would time one thread). A CCMpred that calls no GOMP_parallel is refused
# at more than one thread. Run it on an otherwise idle machine: the times are
# what it measures.
set -euo pipefail

rounds=3
json=""
doc=""
core=0
couplings=""
sources=""
threads_list=1
marker=ccmpred_compare
families_list=ras799,ras999,atz
no_peer=0
die() { echo "ccmpred_compare: $*" >&2; exit 1; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--rounds: expected a positive whole number"; rounds=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --doc) doc=$2; shift 2 ;;
    --core) core=$2; shift 2 ;;
    --couplings) couplings=$2; shift 2 ;;
    --ccmpred-sources) sources=$2; shift 2 ;;
    --threads) threads_list=$2; shift 2 ;;
    --families) families_list=$2; shift 2 ;;
    --no-peer) no_peer=1; shift ;;
    --marker) [[ ${2:-} =~ ^[a-z_]+$ ]] || die "--marker: expected a name of lower-case letters and '_'"; marker=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set /{/^set /!p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (--help)" ;;
  esac
done
here=${BUILD_WORKING_DIRECTORY:-$PWD}
[[ -z $json || $json = /* ]] || json="$here/$json"
[[ -z $doc || $doc = /* ]] || doc="$here/$doc"
[[ -z $doc || -f $doc ]] || die "--doc $doc: no such file"
command -v taskset >/dev/null || die "taskset (util-linux) not found"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (Debian's package 'time')"
[[ $core =~ ^[0-9]+$ ]] || die "--core: expected a core number"
thread_counts=()
for k in ${threads_list//,/ }; do
  [[ $k == all ]] && k=$(nproc)
  [[ $k =~ ^[1-9][0-9]*$ ]] || die "--threads $threads_list: expected positive whole numbers or 'all', comma-separated"
  ((core + k <= $(nproc))) || die "--threads: $k threads from core $core need $((core + k)) cores; this machine has $(nproc)"
  [[ " ${thread_counts[*]-} " == *" $k "* ]] || thread_counts+=("$k")
done

runfiles="${RUNFILES_DIR:-$0.runfiles}/potts_attention"
stages="$runfiles/stages/proteins"
plm_stage="$stages/couplings"
plm_desc="the couplings stage runs it"
if [[ -n $couplings ]]; then
  [[ $couplings = /* ]] || couplings="$here/$couplings"
  [[ -x $couplings ]] || die "--couplings $couplings: not an executable"
  plm_stage=$couplings
  plm_desc="the couplings stage's build $(basename "$couplings") runs it"
fi
ras="$stages/paper_pf00071"
tool="$runfiles/bench/proteins/family_tool"
for f in train.h5 test.h5 train.aln columns.csv contacts.csv summary.json; do
  [[ -f $ras/$f ]] || die "$ras/$f missing (the prepare stage's output)"
done

for f in ${families_list//,/ }; do
  [[ $f =~ ^(ras799|ras999|atz)$ ]] || die "--families $families_list: expected some of ras799,ras999,atz"
done
wanted() { [[ ",$families_list," == *",$1,"* ]]; }
ccm_desc="CCMpred from CCMPRED=${CCMPRED:-}"
if ((no_peer)); then
  ccm_desc="no CCMpred (--no-peer)"
  CCMPRED=/bin/true
elif [[ -z ${CCMPRED:-} ]]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/potts_attention_peers/ccmpred_omp"
  peers=$sources
  [[ -z $peers || $peers = /* ]] || peers="$here/$peers"
  if [[ ! -x $cache/bin/ccmpred ]]; then
    [[ -n $peers ]] ||
      die "no CCMpred: set CCMPRED=/path/to/ccmpred (built from github.com/soedinglab/CCMpred), or give --ccmpred-sources DIR"
    echo "ccmpred_compare: building CCMpred from $peers into $cache ..." >&2
    bash "$runfiles/bench/proteins/build_ccmpred.sh" "$peers" "$cache" >&2 || die "building CCMpred from $peers failed"
  fi
  CCMPRED=$cache/bin/ccmpred
  ccm_desc="CCMpred built from $(cat "$cache/SOURCE" 2>/dev/null || echo "an unnamed archive") with its OpenMP loops on (bench/proteins/build_ccmpred.sh)"
fi
[[ -x $CCMPRED ]] || die "CCMPRED=$CCMPRED is not an executable"
if ((!no_peer)) && [[ " ${thread_counts[*]} " =~ \ ([2-9]|[1-9][0-9]+)\  ]] && ! nm -D "$CCMPRED" 2>/dev/null | grep -q ' GOMP_parallel'; then
  die "CCMPRED=$CCMPRED calls no GOMP_parallel: its -t would run one thread (build it with bench/proteins/build_ccmpred.sh)"
fi
example="$(dirname "$(readlink -f "$CCMPRED")")/../example/1atzA.aln"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The families, prepared once (untimed): NAME FAMILY_DIR PLM_CONFIG H5...
families=()
if wanted ras799; then
  "$tool" aln "$work/ras799.aln" "$ras/train.h5" >/dev/null
  families+=("ras799 $ras $stages/configs/cm_heldout_plm.json")
fi
if wanted ras999; then
  "$tool" aln "$work/ras999.aln" "$ras/train.h5" "$ras/test.h5" >/dev/null
  families+=("ras999 $ras $stages/configs/cm_plm.json")
fi
if ! wanted atz; then
  :
elif [[ -f $example ]]; then
  mkdir -p "$work/atz"
  cat >"$work/atz.json" <<'EOF'
{"format": "aln", "first_residue": 1, "identity": 0.8, "test_fraction": 0.2, "contact_cutoff": 8.0, "min_separation": 6}
EOF
  OPENBLAS_NUM_THREADS=1 "$stages/prepare" --target //bench/proteins:1atzA --config "$work/atz.json" --seed 1 \
    --in "msa/1atzA.aln=$example" $(for o in train.h5 test.h5 train.aln columns.csv contacts.csv summary.json; do
      echo --out "$o=$work/atz/$o"; done) --provenance "$work/atz/provenance.json" >"$work/atz.log" 2>&1 ||
    { cat "$work/atz.log" >&2; die "preparing 1atzA failed"; }
  "$tool" aln "$work/atz.aln" "$work/atz/train.h5" "$work/atz/test.h5" >/dev/null
  families+=("atz $work/atz $stages/configs/cm_plm.json")
else
  echo "ccmpred_compare: $example not found: 1atzA left out" >&2
fi

# run_one ROUND FAMILY DIR CONFIG PROGRAM THREADS: one timed run pinned to
# cores CORE..CORE+THREADS-1; appends "family@threads program round cpu wall
# evals peak_kb" to $work/runs.
run_one() {
  local r=$1 name=$2 dir=$3 config=$4 prog=$5 k=$6 out="$work/$2.$5.$6.$1" evals cores
  cores=$core
  ((k == 1)) || cores="$core-$((core + k - 1))"
  mkdir -p "$out"
  echo "ccmpred_compare: round $r: $prog on $name, $k thread(s) ..." >&2
  if [[ $prog == plm ]]; then
    local ins=() o
    for o in train.h5 test.h5 train.aln columns.csv contacts.csv summary.json; do ins+=(--in "family/$o=$dir/$o"); done
    env -i OPENBLAS_NUM_THREADS=1 taskset -c "$cores" /usr/bin/time -f '%U %S %e %M' -o "$out/time" \
      "$plm_stage" --target "//bench/proteins:$name" --config "$config" --seed 0 --threads "$k" "${ins[@]}" \
      $(for o in params.h5 scores.h5 curves.csv summary.json; do echo --out "$o=$out/$o"; done) \
      --provenance "$out/provenance.json" >"$out/log" 2>&1 || { tail "$out/log" >&2; die "the PLM on $name failed"; }
    evals=$(grep -o '"evaluations": [0-9]*' "$out/summary.json" | head -1 | awk '{print $2}')
  else
    env -i taskset -c "$cores" /usr/bin/time -f '%U %S %e %M' -o "$out/time" \
      "$CCMPRED" -t "$k" "$work/$name.aln" "$out/scores.mat" >"$out/log" 2>&1 || { tail "$out/log" >&2; die "CCMpred on $name failed"; }
    # Its progress table: one line per iteration, starting with the iteration number.
    evals=$(awk '$1 ~ /^[0-9]+$/ && NF >= 6 { n = $1 } END { print n + 0 }' "$out/log")
  fi
  read -r u s w m <"$out/time"
  echo "$name@$k $prog $r $(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $w ${evals:-0} $m" >>"$work/runs"
}

: >"$work/runs"
for r in $(seq "$rounds"); do
  for f in "${families[@]}"; do
    read -r name dir config <<<"$f"
    if ((no_peer)); then order=(plm); elif ((r % 2)); then order=(plm ccmpred); else order=(ccmpred plm); fi
    for k in "${thread_counts[@]}"; do
      for p in "${order[@]}"; do run_one "$r" "$name" "$dir" "$config" "$p" "$k"; done
    done
  done
done

# min / median / max of column K over a family's runs of a program.
stat3() {
  awk -v f="$1" -v p="$2" -v k="$3" '$1 == f && $2 == p { print $k }' "$work/runs" | sort -g |
    awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s", v[1], m, v[NR] }'
}
fmt3() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { printf "%." d "f / %." d "f / %." d "f", a, b, c }'; }
label() {
  case $1 in
    ras799) echo "Ras (PF00071), 799 training sequences × 159 columns" ;;
    ras999) echo "Ras (PF00071), all 999 sequences × 159 columns" ;;
    atz) echo "1atzA (CCMpred's example), $(grep -c . "$work/atz.aln") sequences × $(head -1 "$work/atz.aln" | tr -d '\n' | wc -c) columns" ;;
  esac
}

if ((no_peer)); then
  echo "ccmpred_compare: --no-peer: the PLM's runs (family@threads program round cpu wall evaluations peak_kb):"
  cat "$work/runs"
  for f in "${families[@]}"; do
    read -r name dir config <<<"$f"
    [[ $name == atz ]] || echo "$name: $("$tool" precision "$dir" "$work/$name.plm.${thread_counts[0]}.1/scores.h5")"
  done
  exit 0
fi

cpu_model=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
table="Measured $(date -u +%Y-%m-%d) by \`tools/bazel run //bench/proteins:$marker\`: $rounds rounds, one program after the other, the order alternating by round, pinned to cores from $core of $(nproc) ($cpu_model), at ${thread_counts[*]} thread(s) (the PLM's \`--threads\`, CCMpred's \`-t\`); $ccm_desc, with its defaults, the PLM as $plm_desc. Min / median / max over the rounds.

| family | program | threads | CPU s (user + system) | wall s | evaluations (PLM) or iterations (CCMpred) | peak memory, MB | wall, PLM / CCMpred (medians) | CPU, PLM / CCMpred | memory, PLM / CCMpred |
|---|---|---|---|---|---|---|---|---|---|"
js="{\"rounds\": $rounds, \"core\": $core, \"machine\": \"$(nproc) hardware threads, $cpu_model\", \"families\": {"
jsep=""
for f in "${families[@]}"; do
  read -r name dir config <<<"$f"
  for k in "${thread_counts[@]}"; do
    c="$name@$k"
    read -r pc0 pc1 pc2 <<<"$(stat3 "$c" plm 4)"
    read -r cc0 cc1 cc2 <<<"$(stat3 "$c" ccmpred 4)"
    read -r pw0 pw1 pw2 <<<"$(stat3 "$c" plm 5)"
    read -r cw0 cw1 cw2 <<<"$(stat3 "$c" ccmpred 5)"
    read -r pm0 pm1 pm2 <<<"$(stat3 "$c" plm 7)"
    read -r cm0 cm1 cm2 <<<"$(stat3 "$c" ccmpred 7)"
    cpu_ratio=$(awk -v a="$pc1" -v b="$cc1" 'BEGIN { printf "%.2f", a / b }')
    wall_ratio=$(awk -v a="$pw1" -v b="$cw1" 'BEGIN { printf "%.2f", a / b }')
    mem_ratio=$(awk -v a="$pm1" -v b="$cm1" 'BEGIN { printf "%.2f", a / b }')
    for p in plm ccmpred; do
      read -r c0 c1 c2 <<<"$(stat3 "$c" $p 4)"
      read -r w0 w1 w2 <<<"$(stat3 "$c" $p 5)"
      read -r e0 e1 e2 <<<"$(stat3 "$c" $p 6)"
      read -r m0 m1 m2 <<<"$(stat3 "$c" $p 7)"
      prog=$([[ $p == plm ]] && echo "the project's PLM" || echo "CCMpred")
      ratios=$([[ $p == plm ]] && echo "| **$wall_ratio** | **$cpu_ratio** | **$mem_ratio** |" || echo "| | | |")
      table+="
| $(label "$name") | $prog | $k | $(fmt3 "$c0" "$c1" "$c2" 1) | $(fmt3 "$w0" "$w1" "$w2" 1) | $(fmt3 "$e0" "$e1" "$e2" 0) | $(fmt3 "$((m0 / 1024))" "$((m1 / 1024))" "$((m2 / 1024))" 0) $ratios"
      js+="$jsep\"$name.$p.$k\": {\"threads\": $k, \"cpu_seconds\": [$c0, $c1, $c2], \"wall_seconds\": [$w0, $w1, $w2], \"evaluations\": [$e0, $e1, $e2], \"peak_kb\": [$m0, $m1, $m2]}"
      jsep=", "
    done
  done
done
k1=${thread_counts[0]}
table+="

Precision against PDB 121P (|i − j| ≥ 6; none for 1atzA, which has no structure here), scored by the project's code on the same contacts, and the share of the PLM's top-L pairs that are among CCMpred's top-L (round 1's outputs at $k1 thread(s)):

| family | program | top-L | top-L/2 | top-L/5 | top-L agreement |
|---|---|---|---|---|---|"
for f in "${families[@]}"; do
  read -r name dir config <<<"$f"
  plm_out="$work/$name.plm.$k1.1"
  ccm_out="$work/$name.ccmpred.$k1.1"
  agree=$("$tool" agreement "$dir" "$plm_out/scores.h5" "$ccm_out/scores.mat")
  a=$(tr -d '{},' <<<"$agree" | awk '{ print $2 }')
  js+=", \"$name.agreement\": $agree"
  for p in plm ccmpred; do
    out="$work/$name.$p.$k1.1"
    scores=$([[ $p == plm ]] && echo "$out/scores.h5" || echo "$out/scores.mat")
    prog=$([[ $p == plm ]] && echo "the project's PLM" || echo "CCMpred")
    shown=$([[ $p == plm ]] && printf '%.3f' "$a" || echo "")
    if [[ $name == atz ]]; then
      table+="
| $(label "$name") | $prog | | | | $shown |"
      continue
    fi
    prec=$("$tool" precision "$dir" "$scores")
    read -r l l2 l5 <<<"$(tr -d '{},' <<<"$prec" | awk '{ print $2, $4, $6 }')"
    table+="
| $(label "$name") | $prog | $(printf '%.3f' "$l") | $(printf '%.3f' "$l2") | $(printf '%.3f' "$l5") | $shown |"
    js+=", \"$name.$p.precision\": $prec"
  done
done
js+="}}"

echo "$table"
if [[ -n $json ]]; then echo "$js" >"$json.tmp" && mv "$json.tmp" "$json" && echo "ccmpred_compare: wrote $json" >&2; fi
if [[ -n $doc ]]; then
  marks=$(grep -c -e "^<!-- $marker: begin -->\$" -e "^<!-- $marker: end -->\$" "$doc" || true)
  [[ $marks == 2 ]] || die "$doc: no '<!-- $marker: begin -->' and '<!-- $marker: end -->' lines to put the table between"
  printf '%s\n' "$table" >"$work/table.md"
  awk -v t="$work/table.md" -v b="<!-- $marker: begin -->" -v e="<!-- $marker: end -->" '
    $0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
    $0 == e { skip = 0 }
    !skip { print }' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
  echo "ccmpred_compare: updated the table in $doc" >&2
fi
