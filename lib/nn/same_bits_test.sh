#!/bin/sh
# The lib/nn kernels give the same bits with the AVX2 clones (picked on an
# AVX2 machine) as with the baseline-only build. On a machine without AVX2
# both builds run the baseline code and the test says so.
set -eu
a=$("$1")
b=$("$2")
echo "default build:  $a"
echo "baseline build: $b"
case "$a" in *no-avx2*) echo "note: this CPU has no AVX2, both builds ran the baseline kernels" ;; esac
[ "${a%% *}" = "${b%% *}" ] || { echo "FAIL: the fingerprints differ"; exit 1; }
echo "same bits"
