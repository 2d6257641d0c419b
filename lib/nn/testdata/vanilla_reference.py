#!/usr/bin/env python3
"""An independent reference for lib/nn/transformer: the vanilla transformer of
paper/spec.md section 2 written directly in PyTorch (float64, autograd), from
the model's definition, not from the C++ code.

It draws weights and a batch from a seeded torch generator, and writes, for a
few model shapes, the weights, the batch, the summed cross-entropy and the
gradient of every parameter (autograd) to vanilla_reference.json.
lib/nn:transformer_reference_test loads them into VanillaTransformer and
requires the same loss and gradients (the C++ test needs no PyTorch).

Regenerate by hand (Debian's python3-torch 1.13):
    /usr/bin/python3 lib/nn/testdata/vanilla_reference.py > lib/nn/testdata/vanilla_reference.json

Conventions (paper/spec.md section 2): tokens 0..C-1 are colours and C is the
mask; x_j = W_emb onehot(token_j) + b_emb + PE_j with the sinusoidal PE
(sin on even rows, cos on odd rows, frequency 10000^(-2 floor(k/2) / d));
post-LayerNorm blocks x <- LN(x + W_o Attn(x) + b_o), x <- LN(x + W_2
ReLU(W_1 x + b_1) + b_2), one head, scores q.k / sqrt(d) over all L
positions, LayerNorm with the biased variance and eps inside the square root;
logits = W_out x_i + b_out at the masked position i. The loss is the
cross-entropy summed over the batch.
"""
import json
import math

import torch

torch.set_default_dtype(torch.float64)


def positions(d, L):
    pe = torch.zeros(d, L)
    for j in range(L):
        for k in range(d):
            freq = 10000.0 ** (-(k - k % 2) / d)
            pe[k, j] = math.sin(j * freq) if k % 2 == 0 else math.cos(j * freq)
    return pe


def layer_norm(x, gamma, beta, eps):  # x: d x n, normalised over d
    mean = x.mean(dim=0, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=0, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * gamma + beta


def parameter_shapes(L, C, d, F, layers):
    shapes = [("W_emb", (d, C + 1)), ("b_emb", (d, 1))]
    for n in range(layers):
        p = "block%d." % n
        shapes += [(p + "Wq", (d, d)), (p + "bq", (d, 1)), (p + "Wk", (d, d)), (p + "bk", (d, 1)),
                   (p + "Wv", (d, d)), (p + "bv", (d, 1)), (p + "Wo", (d, d)), (p + "bo", (d, 1)),
                   (p + "ln1_gamma", (d, 1)), (p + "ln1_beta", (d, 1)), (p + "W1", (F, d)), (p + "b1", (F, 1)),
                   (p + "W2", (d, F)), (p + "b2", (d, 1)), (p + "ln2_gamma", (d, 1)), (p + "ln2_beta", (d, 1))]
    return shapes + [("W_out", (C, d)), ("b_out", (C, 1))]


def loss_of(w, seqs, masked, L, C, d, layers, eps):
    pe = positions(d, L)
    total = torch.zeros(())
    for s, i in zip(seqs, masked):
        tokens = list(s)
        tokens[i] = C
        onehot = torch.zeros(C + 1, L)
        for j, t in enumerate(tokens):
            onehot[t, j] = 1.0
        x = w["W_emb"] @ onehot + w["b_emb"] + pe  # d x L
        for n in range(layers):
            p = lambda k: w["block%d.%s" % (n, k)]
            q, k, v = p("Wq") @ x + p("bq"), p("Wk") @ x + p("bk"), p("Wv") @ x + p("bv")
            att = torch.softmax((q.t() @ k) / math.sqrt(d), dim=1)  # rows: queries, columns: keys
            o = v @ att.t()
            x = layer_norm(x + p("Wo") @ o + p("bo"), p("ln1_gamma"), p("ln1_beta"), eps)
            h = torch.relu(p("W1") @ x + p("b1"))
            x = layer_norm(x + p("W2") @ h + p("b2"), p("ln2_gamma"), p("ln2_beta"), eps)
        logits = w["W_out"] @ x[:, i:i + 1] + w["b_out"]
        total = total - torch.log_softmax(logits[:, 0], dim=0)[s[i]]
    return total


def case(name, L, C, d, F, layers, batch, seed, eps=1e-6):
    g = torch.Generator().manual_seed(seed)
    w = {}
    for pname, shape in parameter_shapes(L, C, d, F, layers):
        if "gamma" in pname:  # LayerNorm gains near 1, so that the test exercises gamma != 1
            w[pname] = 1.0 + 0.2 * torch.randn(shape, generator=g)
        else:
            w[pname] = (0.5 if pname.startswith(("W", "block")) else 0.1) * torch.randn(shape, generator=g)
        w[pname].requires_grad_(True)
    seqs = torch.randint(0, C, (batch, L), generator=g).tolist()
    masked = torch.randint(0, L, (batch,), generator=g).tolist()
    loss = loss_of(w, seqs, masked, L, C, d, layers, eps)
    loss.backward()
    col = lambda m: m.detach().t().reshape(-1).tolist()  # column-major, as Armadillo stores it
    return {
        "name": name,
        "options": {"L": L, "C": C, "d": d, "ffn_width": F, "layers": layers, "layernorm_eps": eps},
        "sequences": seqs,
        "masked": masked,
        "parameters": {k: {"shape": list(v.shape), "value": col(v), "grad": col(v.grad)} for k, v in w.items()},
        "loss": loss.item(),
    }


if __name__ == "__main__":
    cases = [
        case("one layer", L=7, C=5, d=6, F=12, layers=1, batch=9, seed=1),
        case("three layers", L=8, C=4, d=6, F=12, layers=3, batch=11, seed=2),
        case("paper width", L=20, C=20, d=20, F=40, layers=1, batch=4, seed=3),
    ]
    print(json.dumps({"generator": "lib/nn/testdata/vanilla_reference.py, PyTorch %s, float64, autograd"
                      % torch.__version__, "cases": cases}, separators=(",", ":")))
