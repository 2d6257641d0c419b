#!/usr/bin/env python3
"""The PyTorch reference for the training-speed target: one training epoch
of the same three models in PyTorch (Debian's python3-torch, 1.13), on one
CPU thread, as a researcher would write them.

Same sizes as bench/train/train_bench.cc: M = 3000 random sequences,
L = C = d = 20, mini-batches of 100, forward + backward + SGD step, no
evaluation. PyTorch's default float32. Timed by the wall clock
(perf_counter). Prints one JSON object per model: {"model": ...,
"ms_per_epoch": median over repetitions, "ms_all": every epoch's time,
"repetitions": n}.

Usage: pytorch_reference.py [--repetitions N]
"""
import argparse
import json
import math
import statistics
import time

import torch
from torch import nn

M, L, C, D, BATCH = 3000, 20, 20, 20, 100


class Factored(nn.Module):
    """logits_i = sum_{j != i} A_ij V[:, s_j] (eq. 4), every position at once."""

    def __init__(self):
        super().__init__()
        self.A = nn.Parameter(0.1 * torch.randn(L, L))
        self.V = nn.Parameter(0.1 * torch.randn(C, C))
        self.register_buffer("offdiag", 1.0 - torch.eye(L))

    def forward(self, s):  # s: (B, L) colours -> logits (B, L, C)
        x = nn.functional.one_hot(s, C).float()  # (B, L, C)
        values = x @ self.V.t()  # V[:, s_j] for every j
        return (self.A * self.offdiag) @ values


def sinusoidal(d, length):
    pe = torch.zeros(length, d)
    pos = torch.arange(length).float()[:, None]
    freq = torch.exp(-torch.arange(0, d, 2).float() / d * math.log(10000.0))
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)
    return pe


class Vanilla(nn.Module):
    """Post-LayerNorm encoder (one head, feed-forward 2d, ReLU), read-out at the masked position."""

    def __init__(self, layers):
        super().__init__()
        self.embed = nn.Linear(C + 1, D)  # one-hot colour or mask token, with bias
        self.register_buffer("pe", sinusoidal(D, L))
        layer = nn.TransformerEncoderLayer(D, 1, dim_feedforward=2 * D, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.out = nn.Linear(D, C)

    def forward(self, s, masked):  # s: (B, L), masked: (B,) -> logits (B, C)
        tokens = s.clone()
        rows = torch.arange(s.shape[0])
        tokens[rows, masked] = C
        x = self.embed(nn.functional.one_hot(tokens, C + 1).float()) + self.pe
        y = self.encoder(x)
        return self.out(y[rows, masked])


def epoch(model, data, vanilla, optimiser):
    for b0 in range(0, M, BATCH):
        s = data[b0:b0 + BATCH]
        optimiser.zero_grad()
        if vanilla:
            masked = torch.randint(0, L, (s.shape[0],))
            loss = nn.functional.cross_entropy(model(s, masked), s[torch.arange(s.shape[0]), masked])
        else:
            logits = model(s)
            loss = nn.functional.cross_entropy(logits.reshape(-1, C), s.reshape(-1))
        loss.backward()
        optimiser.step()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=5, help="timed epochs per model (after one warm-up)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(1)
    data = torch.randint(0, C, (M, L))
    for name, model, vanilla in [("factored", Factored(), False), ("vanilla1", Vanilla(1), True),
                                 ("vanilla3", Vanilla(3), True)]:
        optimiser = torch.optim.SGD(model.parameters(), lr=0.01)
        epoch(model, data, vanilla, optimiser)  # warm-up
        times = []
        for _ in range(args.repetitions):
            t0 = time.perf_counter()
            epoch(model, data, vanilla, optimiser)
            times.append(1e3 * (time.perf_counter() - t0))
        print(json.dumps({"model": name, "ms_per_epoch": statistics.median(times), "ms_all": times,
                          "repetitions": args.repetitions, "torch": torch.__version__}), flush=True)


if __name__ == "__main__":
    main()
