#!/usr/bin/env bash
# The attention stage's fits from two builds side by side: this workspace's
# stage binary and another build's (--base-stage, e.g. a checkout of an
# earlier commit after `tools/bazel build -c opt //stages/proteins:attention`),
# each fitting the same configurations (the observation's protocol on all of
# Ras's sequences, shortened to --steps) in turn, round after round, pinned
# to one core. Reports each fit's CPU time (user + system) per round, the
# ratio base / this build per round, and whether both builds wrote the same
# bytes (params.h5, scores.h5), as JSON (--json FILE) and a Markdown table.
# With --threads K both builds run K threads on cores C .. C + K - 1, and
# the wall time (what threads shorten) is reported beside the CPU time.
#   tools/bazel run //bench/proteins:attention_step_compare -- --base-stage PATH
#       [--steps N] [--rounds R] [--core C] [--threads K] [--json FILE]
set -euo pipefail

base=""
steps=200
rounds=3
core=0
json=""
threads=1
die() { echo "attention_step_compare: $*" >&2; exit 1; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base-stage) base=$2; shift 2 ;;
    --steps) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--steps: expected a positive whole number"; steps=$2; shift 2 ;;
    --rounds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--rounds: expected a positive whole number"; rounds=$2; shift 2 ;;
    --core) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--core: expected a core number"; core=$2; shift 2 ;;
    --threads) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--threads: expected a positive whole number"; threads=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (--help)" ;;
  esac
done
here=${BUILD_WORKING_DIRECTORY:-$PWD}
[[ -n $base ]] || die "--base-stage PATH: expected the other build's stages/proteins/attention"
[[ $base = /* ]] || base="$here/$base"
[[ -x $base ]] || die "$base: not an executable"
[[ -z $json || $json = /* ]] || json="$here/$json"
command -v taskset >/dev/null || die "taskset not found (util-linux)"
last_core=$((core + threads - 1))
[[ $last_core -lt $(nproc) ]] || die "--core $core --threads $threads: this machine has cores 0 .. $(($(nproc) - 1))"
runfiles="${RUNFILES_DIR:-$0.runfiles}/potts_attention"
head_stage="$runfiles/stages/proteins/attention"
family="$runfiles/stages/proteins/paper_pf00071"
configs=(cm_attn_h256 cm_attn_h64 cm_attn_h32_d16)
for f in "$head_stage" "$family/train.h5"; do [[ -e $f ]] || die "$f: missing from the runfiles"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ins=()
for o in train.h5 test.h5 train.aln columns.csv contacts.csv summary.json; do ins+=(--in "family/$o=$family/$o"); done
for c in "${configs[@]}"; do
  python3 - "$runfiles/stages/proteins/configs/$c.json" "$steps" >"$work/$c.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["steps"] = int(sys.argv[2])
c.pop("_comment", None)
print(json.dumps(c))
PY
done
for r in $(seq 1 "$rounds"); do
  for c in "${configs[@]}"; do
    for build in base head; do
      stage=$head_stage
      [[ $build = base ]] && stage=$base
      out="$work/$r/$c/$build"
      mkdir -p "$out"
      echo "attention_step_compare: round $r, $c, $build ..." >&2
      env -i OPENBLAS_NUM_THREADS=1 taskset -c "$core-$last_core" /usr/bin/time -f '%U %S %e' -o "$out/time" \
        "$stage" --target "//bench/proteins:attention_step_compare" --config "$work/$c.json" --seed 1 "${ins[@]}" \
        $(for o in params.h5 scores.h5 curves.csv summary.json; do echo --out "$o=$out/$o"; done) \
        --provenance "$out/provenance.json" --threads "$threads" >"$out/log" 2>&1 || { tail "$out/log" >&2; die "$build's $c fit failed"; }
    done
  done
done

python3 - "$work" "$rounds" "$steps" "$json" "$base" "$threads" "${configs[@]}" <<'PY'
import hashlib, json, os, sys
work, rounds, steps, out, base = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
threads = int(sys.argv[6])
configs = sys.argv[7:]
def times(d):
    u, s, e = open(os.path.join(d, "time")).read().split()
    return float(u) + float(s), float(e)
def cpu(d):
    return times(d)[0]
def wall(d):
    return times(d)[1]
def sha(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest()
# The base build by its file name and hash: its path is this machine's.
res = {"steps": steps, "rounds": rounds, "threads": threads, "base_stage": os.path.basename(base),
       "base_stage_sha256": sha(base), "fits": {}}
rows = []
for c in configs:
    f = {"base_cpu_s": [], "head_cpu_s": [], "ratio": [], "base_wall_s": [], "head_wall_s": [], "wall_ratio": [],
         "same_bytes": True}
    for r in range(1, rounds + 1):
        d = os.path.join(work, str(r), c)
        b, h = cpu(os.path.join(d, "base")), cpu(os.path.join(d, "head"))
        f["base_cpu_s"].append(b)
        f["head_cpu_s"].append(h)
        f["ratio"].append(b / h)
        bw, hw = wall(os.path.join(d, "base")), wall(os.path.join(d, "head"))
        f["base_wall_s"].append(bw)
        f["head_wall_s"].append(hw)
        f["wall_ratio"].append(bw / hw)
        for o in ("params.h5", "scores.h5"):
            f["same_bytes"] &= sha(os.path.join(d, "base", o)) == sha(os.path.join(d, "head", o))
    res["fits"][c] = f
    rows.append("| %s | %.1f | %.1f | %.2fx (%.2f-%.2f) | %.1f | %.1f | %.2fx (%.2f-%.2f) | %s |" % (
        c, min(f["base_cpu_s"]), min(f["head_cpu_s"]), min(f["base_cpu_s"]) / min(f["head_cpu_s"]),
        min(f["ratio"]), max(f["ratio"]), min(f["base_wall_s"]), min(f["head_wall_s"]),
        min(f["base_wall_s"]) / min(f["head_wall_s"]), min(f["wall_ratio"]), max(f["wall_ratio"]),
        "yes" if f["same_bytes"] else "NO"))
print("%d steps, %d rounds, %d thread(s); CPU seconds (user + system) and wall seconds, minimum over rounds; "
      "ratio base / this build (range of the per-round ratios)\n" % (steps, rounds, threads))
print("| fit | CPU, base | CPU, this build | CPU ratio | wall, base | wall, this build | wall ratio | same bytes |\n"
      "|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
if out:
    tmp = out + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(res, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, out)
if not all(f["same_bytes"] for f in res["fits"].values()):
    sys.exit("attention_step_compare: the two builds wrote different bytes")
PY
