#!/usr/bin/env python3
"""The training-speed comparison with PyTorch, like with like: the C++
training-epoch benchmark (//bench/train:train_bench, double and float paths)
and the PyTorch reference (bench/train/pytorch_reference.py, Debian's
python3-torch), one thread each, both pinned to the same core with taskset,
both timed by the wall clock (Google Benchmark's real_time, PyTorch's
perf_counter), alternating for a few rounds so that both see the same drift
of a shared machine. Reports, per model, the minimum epoch time over every
round (the least disturbed run) and, as its spread, the range of the
rounds' minima; the speed-up is the ratio of the two minima, with the range
of the per-round ratios.

Usage (from the repository root):
  /usr/bin/python3 bench/train/compare.py [--rounds R] [--repetitions N] [--cpu K]
(Debian's python3, the one python3-torch installs into.)
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = ["factored", "vanilla1", "vanilla3"]


def build_cpp():
    subprocess.run([os.path.join(ROOT, "tools", "bazel"), "build", "//bench/train:train_bench"], cwd=ROOT,
                   check=True, capture_output=True)
    return os.path.join(ROOT, "bazel-bin", "bench", "train", "train_bench")


def cpp_times(binary, cpu, repetitions):
    """{(model, precision): [wall ms of each repetition]}."""
    out = subprocess.run(["taskset", "-c", str(cpu), binary, "--benchmark_filter=Epoch",
                          "--benchmark_format=json", f"--benchmark_repetitions={repetitions}"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    report = json.loads(out[out.index("{"):])
    times = {}
    for b in report["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        m = re.match(r"BM_(Factored|Vanilla)Epoch/(?:layers:(\d)/)?float:(\d)", b["run_name"])
        if not m:
            continue
        model = "factored" if m.group(1) == "Factored" else "vanilla" + m.group(2)
        precision = "float" if m.group(3) == "1" else "double"
        scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6}[b["time_unit"]]
        times.setdefault((model, precision), []).append(b["real_time"] * scale)
    return times


def torch_times(cpu, repetitions):
    """({model: [wall ms of each epoch]}, torch version)."""
    run = subprocess.run(["taskset", "-c", str(cpu), sys.executable,
                          os.path.join(ROOT, "bench", "train", "pytorch_reference.py"),
                          f"--repetitions={repetitions}"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"compare.py: the PyTorch reference failed under {sys.executable}:\n{run.stderr}\n"
                 "It needs Debian's python3-torch (apt-get install python3-torch) and Debian's "
                 "/usr/bin/python3 to run this script.")
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    return {r["model"]: r["ms_all"] for r in rows}, rows[0]["torch"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="alternations of the two benchmarks")
    parser.add_argument("--repetitions", type=int, default=3, help="timed epochs per model and round")
    parser.add_argument("--cpu", type=int, default=0, help="the core both benchmarks are pinned to")
    args = parser.parse_args()
    binary = build_cpp()
    rounds = []
    for k in range(args.rounds):
        cpp = cpp_times(binary, args.cpu, args.repetitions)
        ref, version = torch_times(args.cpu, args.repetitions)
        rounds.append(({key: min(v) for key, v in cpp.items()}, {key: min(v) for key, v in ref.items()}))
        print(f"round {k + 1}/{args.rounds} done", file=sys.stderr)

    def cell(values):
        return f"{min(values):.1f} ({min(values):.1f}-{max(values):.1f})"

    def speedup(model, precision):
        best = min(ref[model] for _, ref in rounds) / min(cpp[(model, precision)] for cpp, _ in rounds)
        per_round = [ref[model] / cpp[(model, precision)] for cpp, ref in rounds]
        return f"{best:.1f}x ({min(per_round):.1f}-{max(per_round):.1f})"

    print(f"| model | PyTorch {version} float32 (ms) | C++ double (ms) | speed-up | C++ float (ms) | speed-up |")
    print("|---|---|---|---|---|---|")
    for model in MODELS:
        r = [ref[model] for _, ref in rounds]
        d = [cpp[(model, "double")] for cpp, _ in rounds]
        f = [cpp[(model, "float")] for cpp, _ in rounds]
        print(f"| {model} | {cell(r)} | {cell(d)} | {speedup(model, 'double')} | {cell(f)} | "
              f"{speedup(model, 'float')} |")
    print(f"({args.rounds} interleaved rounds of {args.repetitions} epochs per model, both pinned to core {args.cpu}, "
          "wall clock; time: minimum over all epochs (range of the rounds' minima); speed-up: ratio of the minima "
          "(range of the per-round ratios))")


if __name__ == "__main__":
    main()
