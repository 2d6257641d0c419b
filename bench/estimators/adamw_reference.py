#!/usr/bin/env python3
"""PyTorch's AdamW on the project's reference problem: the losses that
//lib/estimators:adamw_reference_test compares the C++ AdamW with.

Reads the problem written by //bench/estimators:adamw_reference_inputs (a
factored coupling model with fields, eq. 4 summed over heads, its packed
start and the batches), fits it with torch.optim.AdamW in float64 for the
given steps, and prints the problem with "torch_losses" (each batch's mean
cross-entropy before its step) and "torch_x_final" added. Needs Debian's
python3-torch.

Packing (as lib/estimators/coupling_models.h): the fields h (C x L), then per
head A (L x L, diagonal held at zero) and V (C x C), each column-major.

Usage: adamw_reference.py INPUT.json > OUTPUT.json
"""
import json
import sys

import torch


def main():
    p = json.load(open(sys.argv[1]))
    torch.set_num_threads(1)
    L, C, H = p["L"], p["C"], p["heads"]
    seqs = torch.tensor(p["sequences"], dtype=torch.long)
    x = torch.nn.Parameter(torch.tensor(p["x0"], dtype=torch.float64))
    mask = 1.0 - torch.eye(L, dtype=torch.float64)
    opt = torch.optim.AdamW([x], lr=p["lr"], betas=tuple(p["betas"]), eps=p["eps"],
                            weight_decay=p["weight_decay"])

    def loss_of(batch):
        s = seqs[batch]
        onehot = torch.nn.functional.one_hot(s, C).to(torch.float64)  # (B, L, C)
        h = x[: C * L].view(L, C)  # h[i, a]: column-major C x L
        z = h.unsqueeze(0).expand(len(batch), L, C)
        off = C * L
        for _ in range(H):
            A = x[off: off + L * L].view(L, L).t() * mask  # A[i, j]
            off += L * L
            V = x[off: off + C * C].view(C, C).t()  # V[a, b]
            off += C * C
            z = z + torch.einsum("ij,ab,njb->nia", A, V, onehot)
        return torch.nn.functional.cross_entropy(z.reshape(-1, C), s.reshape(-1))

    losses = []
    for t in range(p["steps"]):
        opt.zero_grad()
        loss = loss_of(torch.tensor(p["batches"][t], dtype=torch.long))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    p["torch_version"] = torch.__version__
    p["torch_losses"] = losses
    p["torch_x_final"] = x.detach().tolist()
    json.dump(p, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
