#!/usr/bin/env python3
"""An independent rescoring of a score stage's top-L precisions.

Written apart from the C++ (lib/proteins) from the project's contact
convention: a residue's representative atom is its C-beta (C-alpha for
glycine or a residue without one), from the ATOM records of one chain, the
first alternate location; two residues are in contact when those atoms are
closer than 8 A and their residue numbers differ by at least 6. Pairs of
columns are ranked by score (ties in column order), and the top-L precision
counts contacts among the first L pairs at |i - j| >= 6, L the number of
columns. Each predictor's precision is the mean over its runs.

Reads the prepare stage's columns.csv, the structure, each run's scores.h5
(raw doubles through h5dump -b, row-major L x L) and the score stage's
summary.json; prints one line per predictor and exits 1 if the contact count
or any precision differs from the summary's.

Usage: rescore.py --columns columns.csv --structure FILE.pdb [--chain A]
                  --summary summary.json RUN=scores.h5 [RUN=scores.h5 ...]
RUN is the predictor's key with its seed (cm_plm, cm_attn_h256_s2, ...).
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile


def representatives(pdb, chain):
    """Residue number -> (x, y, z) of its C-beta, or C-alpha without one."""
    ca, cb, first_alt = {}, {}, {}
    with open(pdb) as f:
        for line in f:
            if not line.startswith("ATOM  ") or len(line) < 54:
                continue
            if chain and line[21] != chain:
                continue
            atom, number, alt = line[12:16].strip(), int(line[22:26]), line[16]
            if atom not in ("CA", "CB"):
                continue
            if alt != " ":
                key = (number, atom)
                first_alt.setdefault(key, alt)
                if first_alt[key] != alt:
                    continue
            xyz = (float(line[30:38]), float(line[38:46]), float(line[46:54]))
            (cb if atom == "CB" else ca).setdefault(number, xyz)
    return {n: cb.get(n, ca.get(n)) for n in set(ca) | set(cb)}


def scores_of(path, L):
    with tempfile.TemporaryDirectory() as d:
        raw = os.path.join(d, "scores.bin")
        subprocess.run(["h5dump", "-d", "/scores", "-b", "LE", "-o", raw, path], check=True,
                       stdout=subprocess.DEVNULL)
        import array
        a = array.array("d")
        with open(raw, "rb") as f:
            a.frombytes(f.read())
    if len(a) != L * L:
        sys.exit("rescore: %s holds %d scores, expected %d x %d" % (path, len(a), L, L))
    if sys.byteorder != "little":
        a.byteswap()
    return [a[i * L:(i + 1) * L] for i in range(L)]


def top_l(scores, residues, contacts):
    L = len(residues)
    pairs = [(a, b) for a in range(L) for b in range(a + 1, L) if abs(residues[a] - residues[b]) >= 6]
    pairs.sort(key=lambda p: -scores[p[0]][p[1]])  # stable: ties keep column order
    hits = sum((min(residues[a], residues[b]), max(residues[a], residues[b])) in contacts for a, b in pairs[:L])
    return hits / L


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--columns", required=True)
    ap.add_argument("--structure", required=True)
    ap.add_argument("--chain", default="")
    ap.add_argument("--summary", required=True)
    ap.add_argument("runs", nargs="+", metavar="RUN=scores.h5")
    o = ap.parse_args()
    with open(o.columns) as f:
        residues = [int(float(r["residue"])) for r in csv.DictReader(f)]
    atoms = representatives(o.structure, o.chain)
    missing = [n for n in residues if n not in atoms]
    if missing:
        sys.exit("rescore: residues %s of %s are not in %s" % (missing[:5], o.columns, o.structure))
    contacts = set()
    for a in range(len(residues)):
        for b in range(a + 1, len(residues)):
            i, j = sorted((residues[a], residues[b]))
            if j - i >= 6 and math.dist(atoms[i], atoms[j]) < 8.0:
                contacts.add((i, j))
    with open(o.summary) as f:
        summary = json.load(f)
    bad = 0
    if summary["contacts"] != len(contacts):
        print("contacts: the summary has %d, recomputed %d" % (summary["contacts"], len(contacts)))
        bad += 1
    else:
        print("contacts: %d, as the summary" % len(contacts))
    by_predictor = {}
    for spec in o.runs:
        run, path = spec.split("=", 1)
        predictor = re.sub(r"_s[0-9]+$", "", run)
        by_predictor.setdefault(predictor, []).append(top_l(scores_of(path, len(residues)), residues, contacts))
    for predictor, values in sorted(by_predictor.items()):
        mine = sum(values) / len(values)
        theirs = summary["predictors"][predictor]["precision"]["6+"]["L"]["mean"]
        same = abs(mine - theirs) <= 1e-12
        bad += not same
        print("%-28s top-L %.6f over %d run(s); the summary %.6f%s" % (predictor, mine, len(values), theirs,
                                                                    "" if same else "  DIFFERS"))
    if bad:
        sys.exit("rescore: %d number(s) differ" % bad)
    print("rescore: every number agrees")


if __name__ == "__main__":
    main()
