#!/usr/bin/env python3
"""PyTorch's AdamW on the project's reference problems: the losses that
//tests/reference:adamw_reference_test compares the C++ fits with.

Reads a problem written by //tests/reference:adamw_reference_inputs, fits
it with torch.optim.AdamW in float64 for the given steps, and prints the
problem with "torch_losses" (each batch's loss before its step) and
"torch_x_final" added. Needs Debian's python3-torch (/usr/bin/python3).

Two models, written here from their equations, not from the C++:
* "factored" (the default): a factored coupling model with fields, eq. 4
  summed over heads, loss the batch's mean cross-entropy. Packing (as
  lib/couplings/coupling_models.h): the fields h (C x L), then per head A
  (L x L, diagonal held at zero) and V (C x C), each column-major.
* "attention": the observation's factored attention, eq. O1 of
  lib/attention_potts/attention_potts.h: softmax attention over j != i of
  q_i . k_j / sqrt(d), W = sum_h A^h (x) V^h symmetrised, states >= A are
  pads (no input, no target), loss (CE + T (c_W ||W||_F + c_b ||b||_F)) / B
  with c_W = lambda (L-1)(A-1)/N and c_b = lambda/N. Packing: b (A x L), per
  head q (d x L), per head k (d x L), then V (A^2 x H), each column-major.
  With "objective": "O1s", the loss of the code the observation's
  repository pins instead (pinned_attention_loss, written from that code's
  formula), with or without fields.

Usage: adamw_reference.py INPUT.json > OUTPUT.json
"""
import json
import sys

import torch


def factored_loss(p, seqs, x):
    L, C, H = p["L"], p["C"], p["heads"]
    mask = 1.0 - torch.eye(L, dtype=torch.float64)

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

    return loss_of


def attention_loss(p, seqs, x):
    """The loss of a batch of `seqs` at x, in x's dtype."""
    L, A, H, d = p["L"], p["A"], p["heads"], p["head_dim"]
    lam, N = p["lambda"], p["family_size"]
    c_w, c_b = lam * (L - 1) * (A - 1) / N, lam / N
    eye = torch.eye(L, dtype=torch.bool)

    def loss_of(batch):
        s = seqs[batch]
        real = s < A  # (B, L): targets and inputs; the rest are pads
        onehot = torch.nn.functional.one_hot(torch.where(real, s, 0), A).to(x.dtype)
        onehot = onehot * real.unsqueeze(-1)  # a pad is a zero input
        b = x[: A * L].view(L, A)  # b[i, a]
        q = x[A * L: A * L + H * d * L].view(H, L, d)  # q[h, i, r]
        k = x[A * L + H * d * L: A * L + 2 * H * d * L].view(H, L, d)
        V = x[A * L + 2 * H * d * L:].view(H, A, A).transpose(1, 2)  # V[h, a, c]
        scores = torch.einsum("hir,hjr->hij", q, k) / d ** 0.5
        att = torch.softmax(scores.masked_fill(eye, float("-inf")), dim=-1)  # att[h, i, j]
        W = torch.einsum("hij,hac->iajc", att, V)
        W = 0.5 * (W + W.permute(2, 3, 0, 1))  # symmetrised over (site, state) pairs
        z = b.unsqueeze(0) + torch.einsum("iajc,njc->nia", W, onehot)
        logp = torch.log_softmax(z, dim=-1)
        ce = -(logp.gather(-1, torch.where(real, s, 0).unsqueeze(-1)).squeeze(-1) * real).sum()
        T = real.sum()
        penalty = c_w * torch.linalg.norm(W.reshape(-1)) + c_b * torch.linalg.norm(b.reshape(-1))
        return (ce + T * penalty) / len(batch)

    return loss_of


def pinned_attention_loss(p, seqs, x):
    """The pinned code's loss (mogwai a24d741, FactoredAttention.loss and
    compute_regularization with gremlin_weight_decay_coeffs): cross-entropy
    summed over non-pad targets times num_seqs / batch_size, plus the number
    of non-pad targets times (l2 A / (2 B) ||W||^2 + l2 / (B L) ||b||^2 if
    the model has fields), W the full L x A x L x A tensor."""
    L, A, H, d = p["L"], p["A"], p["heads"], p["head_dim"]
    l2, num_seqs, fields = p["lambda"], p["family_size"], p["fields"]
    diag_mask = torch.eye(L, dtype=torch.bool)

    def loss_of(batch):
        s = seqs[batch]
        B = len(batch)
        real = s < A
        onehot = torch.nn.functional.one_hot(torch.where(real, s, 0), A).to(x.dtype) * real.unsqueeze(-1)
        b = x[: A * L].view(L, A)
        q = x[A * L: A * L + H * d * L].view(H, L, d)
        k = x[A * L + H * d * L: A * L + 2 * H * d * L].view(H, L, d)
        V = x[A * L + 2 * H * d * L:].view(H, A, A).transpose(1, 2)
        att = torch.softmax((torch.einsum("hir,hjr->hij", q, k) / d ** 0.5).masked_fill(diag_mask, float("-inf")), -1)
        W = torch.einsum("hij,hac->iajc", att, V)
        W = 0.5 * (W + W.permute(2, 3, 0, 1))
        logits = torch.einsum("iajc,njc->nia", W, onehot)
        if fields:
            logits = logits + b.unsqueeze(0)
        targets = torch.where(real, s, -100)  # -100: PyTorch's ignore_index
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, A), targets.reshape(-1), reduction="sum",
                                                 ignore_index=-100)
        loss = loss * num_seqs / B
        reg = l2 * A / (2 * B) * W.pow(2).sum()
        if fields:
            reg = reg + l2 / (B * L) * b.pow(2).sum()
        return loss + reg * real.sum()

    return loss_of


def main():
    p = json.load(open(sys.argv[1]))
    torch.set_num_threads(1)
    seqs = torch.tensor(p["sequences"], dtype=torch.long)
    x = torch.nn.Parameter(torch.tensor(p["x0"], dtype=torch.float64))
    if p.get("model") != "attention":
        loss_of = factored_loss(p, seqs, x)
    elif p.get("objective") == "O1s":
        loss_of = pinned_attention_loss(p, seqs, x)
    else:
        loss_of = attention_loss(p, seqs, x)
    opt = torch.optim.AdamW([x], lr=p["lr"], betas=tuple(p["betas"]), eps=p["eps"],
                            weight_decay=p["weight_decay"])
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
