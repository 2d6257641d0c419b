#!/usr/bin/env python3
"""The training-speed comparison with PyTorch in one run: the C++
training-epoch benchmark (//bench/train:train_bench, double and float paths)
and the PyTorch reference (bench/train/pytorch_reference.py, needs Debian's
python3-torch), alternating for a few rounds on the same machine, one
thread each (a shared machine's speed drifts over minutes; alternating
exposes both to the same drift). Prints a Markdown table of median ms per
epoch over the rounds and the median over rounds of each round's speed-up
over PyTorch, with its range.

Usage (from the repository root):
  /usr/bin/python3 bench/train/compare.py [--rounds R] [--repetitions N]
(Debian's python3, the one python3-torch installs into.)
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cpp_medians(repetitions):
    out = subprocess.run(
        [os.path.join(ROOT, "tools", "bazel"), "run", "//bench/train:train_bench", "--",
         "--benchmark_filter=Epoch", "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
         "--benchmark_report_aggregates_only=true"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    report = json.loads(out[out.index("{"):])
    medians = {}
    for b in report["benchmarks"]:
        # the median of the repetitions (with one repetition there is no aggregate)
        wanted = ("aggregate", "median") if repetitions > 1 else ("iteration", None)
        if (b.get("run_type"), b.get("aggregate_name")) != wanted:
            continue
        m = re.match(r"BM_(Factored|Vanilla)Epoch/(?:layers:(\d)/)?float:(\d)", b["run_name"])
        if not m:
            continue
        model = "factored" if m.group(1) == "Factored" else "vanilla" + m.group(2)
        precision = "float" if m.group(3) == "1" else "double"
        scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6}[b["time_unit"]]
        medians[(model, precision)] = b["cpu_time"] * scale
    return medians


def torch_medians(repetitions):
    run = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "train", "pytorch_reference.py"),
                          f"--repetitions={repetitions}"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"compare.py: the PyTorch reference failed under {sys.executable}:\n{run.stderr}\n"
                 "It needs Debian's python3-torch (apt-get install python3-torch) and Debian's "
                 "/usr/bin/python3 to run this script.")
    out = run.stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["model"]: r["ms_per_epoch"] for r in rows}, rows[0]["torch"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the two benchmarks")
    parser.add_argument("--repetitions", type=int, default=3, help="timed epochs per model and round")
    args = parser.parse_args()
    rounds = []
    for k in range(args.rounds):
        cpp = cpp_medians(args.repetitions)
        ref, version = torch_medians(args.repetitions)
        rounds.append((cpp, ref))
        print(f"round {k + 1}/{args.rounds} done", file=sys.stderr)
    med = statistics.median

    def speedup(model, precision):
        r = [ref[model] / cpp[(model, precision)] for cpp, ref in rounds]
        return f"{med(r):.1f}x ({min(r):.1f}-{max(r):.1f})"

    print(f"| model | PyTorch {version} float32 (ms) | C++ double (ms) | speed-up | C++ float (ms) | speed-up |")
    print("|---|---|---|---|---|---|")
    for model in ["factored", "vanilla1", "vanilla3"]:
        r = med([ref[model] for _, ref in rounds])
        d = med([cpp[(model, "double")] for cpp, _ in rounds])
        f = med([cpp[(model, "float")] for cpp, _ in rounds])
        print(f"| {model} | {r:.1f} | {d:.1f} | {speedup(model, 'double')} | {f:.1f} | {speedup(model, 'float')} |")
    print(f"({args.rounds} rounds of {args.repetitions} epochs per model; speed-up: median over rounds (range))")


if __name__ == "__main__":
    main()
