#!/usr/bin/env python3
"""The observation's attention fit in PyTorch, timed: the problem written by
attention_torch_inputs (the stage's sequences, start and batches), the loss
of tests/reference/adamw_reference.py (eq. O1 written from its equations,
W formed whole as the observation's code forms it), torch.optim.AdamW, one
thread. Prints JSON: the loss of every step's batch, CPU seconds of the
steps alone (process time, the start-up and reading left out) and of the
whole process, peak resident memory, and the torch version and CPU
capability. Needs Debian's python3-torch (/usr/bin/python3).

Usage: attention_torch.py PROBLEM [--dtype float32|float64]
  (PROBLEM.json and PROBLEM.x0 from attention_torch_inputs)
"""
import argparse
import json
import os
import resource
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "reference"))
from adamw_reference import attention_loss, pinned_attention_loss  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("problem")
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    a = ap.parse_args()
    torch.set_num_threads(1)
    dtype = getattr(torch, a.dtype)
    p = json.load(open(a.problem + ".json"))
    x0 = torch.from_file(a.problem + ".x0", size=os.path.getsize(a.problem + ".x0") // 8, dtype=torch.float64)
    seqs = torch.tensor(p["sequences"], dtype=torch.long)
    x = torch.nn.Parameter(x0.to(dtype).clone())
    loss_of = (pinned_attention_loss if p.get("objective") == "O1s" else attention_loss)(p, seqs, x)
    opt = torch.optim.AdamW([x], lr=p["lr"], betas=tuple(p["betas"]), eps=p["eps"], weight_decay=p["weight_decay"])
    batches = [torch.tensor(b, dtype=torch.long) for b in p["batches"]]
    losses = []
    t0 = time.process_time()
    for b in batches:
        opt.zero_grad()
        loss = loss_of(b)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if not torch.isfinite(loss):
            sys.exit("attention_torch: step %d: loss %r" % (len(losses), loss.item()))
    steps_cpu = time.process_time() - t0
    ru = resource.getrusage(resource.RUSAGE_SELF)
    json.dump({"torch_version": torch.__version__,
               "cpu_capability": torch.backends.cpu.get_cpu_capability()
               if hasattr(torch.backends, "cpu") and hasattr(torch.backends.cpu, "get_cpu_capability") else None,
               "dtype": a.dtype, "steps": len(losses), "losses": losses,
               "steps_cpu_seconds": steps_cpu, "process_cpu_seconds": ru.ru_utime + ru.ru_stime,
               "peak_rss_mb": ru.ru_maxrss / 1024.0}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
