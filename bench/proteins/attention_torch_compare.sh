#!/usr/bin/env bash
# The observation's main attention fit (attention/attn_h256.json: Ras, all 999
# sequences, H = 256 x 32, batches of 128, AdamW) against PyTorch, one thread
# each, pinned to one core, interleaved over ROUNDS rounds, at each
# instruction-set level in turn:
#   * the attention stage with its kernels pinned to AVX2 (as on an AVX2 CPU
#     without AVX-512; //bench/proteins:attention_avx2);
#   * the same with the clones this CPU picks (attention_native);
#   * PyTorch (Debian's python3-torch, installed on first use) with its own
#     kernels and OpenBLAS's limited to AVX2 (ATEN_CPU_CAPABILITY=avx2,
#     OPENBLAS_CORETYPE=Haswell), and unlimited.
# PyTorch takes the stage's own start and batches (attention_torch_inputs),
# so both fits take the same N steps; the loss of step N must agree within a
# relative 1e-4 (float32 rounding: about 1e-5 on a batch loss of 20 000
# targets; the bound stated before any run). Reports CPU per step (the
# stage's seconds_per_step; PyTorch's process time over its steps), the
# whole process's CPU, peak resident memory and the loss at step N.
#   tools/bazel run //bench/proteins:attention_torch_compare -- [--steps N] [--rounds R] [--core C] [--json FILE]
# --no-peer runs the stage's side only (no PyTorch, nothing installed): the
# smoke test's mode (//bench:smoke_test), which checks that the benchmark
# still reads the stage's configuration and runs.
set -euo pipefail

steps=10
rounds=2
core=0
json=""
peer=1
die() { echo "attention_torch_compare: $*" >&2; exit 1; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --steps) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--steps: expected a positive whole number"; steps=$2; shift 2 ;;
    --rounds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--rounds: expected a positive whole number"; rounds=$2; shift 2 ;;
    --core) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--core: expected a core number"; core=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --no-peer) peer=0; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (--help)" ;;
  esac
done
here=${BUILD_WORKING_DIRECTORY:-$PWD}
[[ -z $json || $json = /* ]] || json="$here/$json"
command -v taskset >/dev/null || die "taskset (util-linux) not found"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (Debian's package 'time')"
[[ $core -lt $(nproc) ]] || die "--core $core: this machine has cores 0 .. $(($(nproc) - 1))"
if [[ $peer -eq 1 ]] && ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "attention_torch_compare: installing Debian's python3-torch ..." >&2
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-torch >&2 || die "cannot install python3-torch"
fi

runfiles="${RUNFILES_DIR:-$0.runfiles}/potts_attention"
family="$runfiles/stages/proteins/paper_pf00071"
config="$runfiles/stages/proteins/configs/attention/attn_h256.json"
bench="$runfiles/bench/proteins"
for f in "$family/train.h5" "$config" "$bench/attention_torch_inputs" "$bench/attention_torch.py"; do
  [[ -e $f ]] || die "$f: missing from the runfiles"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 - "$config" "$steps" >"$work/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["steps"] = int(sys.argv[2])
c.pop("_comment", None)
print(json.dumps(c))
PY
"$bench/attention_torch_inputs" "$family/train.h5" "$family/test.h5" "$work/config.json" 1 "$steps" "$work/problem"
ins=()
for o in train.h5 test.h5 train.aln columns.csv contacts.csv summary.json; do ins+=(--in "family/$o=$family/$o"); done

# run NAME LEVEL: one fit, its times in $work/ROUND/NAME.
run() {
  local name=$1 level=$2 out="$work/$r/$1" envs=(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1)
  [[ $level = avx2 ]] && envs+=(OPENBLAS_CORETYPE=Haswell ATEN_CPU_CAPABILITY=avx2)
  mkdir -p "$out"
  echo "attention_torch_compare: round $r, $name ..." >&2
  if [[ $name = torch_* ]]; then
    env -i PATH=/usr/bin:/bin "${envs[@]}" taskset -c "$core" /usr/bin/time -f '%U %S %M' -o "$out/time" \
      /usr/bin/python3 "$bench/attention_torch.py" "$work/problem" >"$out/result.json" 2>"$out/log" ||
      { tail "$out/log" >&2; die "$name failed"; }
  else
    env -i "${envs[@]}" taskset -c "$core" /usr/bin/time -f '%U %S %M' -o "$out/time" \
      "$bench/attention_$name" --target //bench/proteins:attention_torch_compare --config "$work/config.json" --seed 1 \
      "${ins[@]}" $(for o in params.h5 scores.h5 curves.csv summary.json; do echo --out "$o=$out/$o"; done) \
      --provenance "$out/provenance.json" --threads 1 >"$out/log" 2>&1 || { tail "$out/log" >&2; die "$name failed"; }
  fi
}
for r in $(seq 1 "$rounds"); do
  for level in avx2 native; do
    run "$level" "$level"
    [[ $peer -eq 0 ]] || run "torch_$level" "$level"
  done
done

/usr/bin/python3 - "$work" "$rounds" "$steps" "$json" "$core" "$peer" <<'PY'
import csv, hashlib, json, os, platform, statistics, sys
work, rounds, steps, out, core = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
peer = sys.argv[6] == "1"
names = ["avx2", "torch_avx2", "native", "torch_native"] if peer else ["avx2", "native"]
version = None
label = {"avx2": "attention stage, AVX2 clones",
         "torch_avx2": "PyTorch float32, AVX2 (ATEN_CPU_CAPABILITY=avx2, OPENBLAS_CORETYPE=Haswell)",
         "native": "attention stage, this CPU's clones",
         "torch_native": "PyTorch float32, this CPU's kernels"}
rows = {}
for n in names:
    per_step, cpu, rss, loss, digests = [], [], [], [], set()
    for r in range(1, rounds + 1):
        d = os.path.join(work, str(r), n)
        u, s_, m = open(os.path.join(d, "time")).read().split()
        cpu.append(float(u) + float(s_))
        rss.append(float(m) / 1024.0)
        if n.startswith("torch"):
            res = json.load(open(os.path.join(d, "result.json")))
            per_step.append(res["steps_cpu_seconds"] / steps)
            loss.append(res["losses"][-1])
            version = res["torch_version"]
        else:
            prov = json.load(open(os.path.join(d, "provenance.json")))
            per_step.append(prov["timings"]["seconds_per_step"])
            with open(os.path.join(d, "curves.csv")) as f:
                loss.append(float(list(csv.DictReader(f))[-1]["batch_loss"]))
            digests.add(tuple(hashlib.sha256(open(os.path.join(d, o), "rb").read()).hexdigest()
                              for o in ["params.h5", "scores.h5", "curves.csv"]))
    rows[n] = {"label": label[n], "seconds_per_step": per_step, "process_cpu_seconds": cpu, "peak_rss_mb": rss,
               "loss_at_step_n": loss[0], "outputs_sha256": [list(d) for d in sorted(digests)]}
stage_bytes = {tuple(map(tuple, rows[n]["outputs_sha256"])) for n in names if not n.startswith("torch")}
if not peer:
    for n in names:
        print("%s: %.3f s per step, loss at step %d %.6f" % (
            rows[n]["label"], statistics.median(rows[n]["seconds_per_step"]), steps, rows[n]["loss_at_step_n"]))
    print("stage outputs: %s across levels (no PyTorch: --no-peer)" % (
        "the same bytes" if len(stage_bytes) == 1 else "DIFFERENT BYTES"))
    sys.exit(0 if len(stage_bytes) == 1 else 1)
ok = True
print("| run | CPU per step, s (median) | process CPU, s | peak memory, MB | loss at step %d | against PyTorch |" % steps)
print("|---|---|---|---|---|---|")
for n in names:
    row = rows[n]
    level = "avx2" if "avx2" in n else "native"
    torch_row = rows["torch_" + level]
    ratio = statistics.median(row["seconds_per_step"]) / statistics.median(torch_row["seconds_per_step"])
    rel = abs(row["loss_at_step_n"] - torch_row["loss_at_step_n"]) / abs(torch_row["loss_at_step_n"])
    row["cpu_per_step_vs_torch"] = ratio
    row["loss_rel_diff_vs_torch"] = rel
    if not n.startswith("torch") and rel > 1e-4:
        ok = False
    print("| %s | %.3f | %.1f | %.0f | %.6f | %s |" % (
        row["label"], statistics.median(row["seconds_per_step"]), statistics.median(row["process_cpu_seconds"]),
        max(row["peak_rss_mb"]), row["loss_at_step_n"],
        "1" if n.startswith("torch") else "%.3fx CPU, loss %.1e relative" % (ratio, rel)))
print()
print("stage outputs: %s across levels" % ("the same bytes" if len(stage_bytes) == 1 else "DIFFERENT BYTES"))
print("losses within 1e-4 of PyTorch's: %s" % ("yes" if ok else "NO"))
record = {"steps": steps, "rounds": rounds, "core": int(core), "torch_version": version,
          "cpu": platform.processor() or open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": "),
          "rows": rows, "stage_outputs_same_bytes": len(stage_bytes) == 1, "losses_agree_1e-4": ok}
if out:
    with open(out, "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
sys.exit(0 if ok and len(stage_bytes) == 1 else 1)
PY
