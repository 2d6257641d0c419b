#!/bin/sh
# The lib/nn kernels give the same bits with the AVX2 clones (picked on an
# AVX2 machine) as with the baseline-only build. On a machine without AVX2
# both builds run the baseline code and the test says so.
#
# Second pair: both builds again with the numeric libraries pinned as every
# stage pins them (--pinned-numerics, lib/core/numeric_env.h): glibc's libm
# without its FMA and AVX2 variants. There the baseline
# build's fma() calls take glibc's software path, which is what a CPU
# without FMA runs, while the default build still uses the FMA instruction:
# the fused factored-attention kernel must give the same bits either way.
# (The two pairs may differ from each other: libm's log is another variant.)
#
# The pinned fingerprint is also compared with the one committed in
# layer_fingerprint_golden.txt ($3), so that a machine of another CPU family
# checks its bits against this tree's. After a deliberate change of the
# kernels' numbers, write the new pinned fingerprint there (and say why in the
# commit): tools/bazel run //lib/nn:layer_fingerprint -- --pinned-numerics
set -eu
golden=$(cat "$3")
a=$("$1")
b=$("$2")
am=$("$1" --pinned-numerics)
bm=$("$2" --pinned-numerics)
echo "default build:  $a"
echo "baseline build: $b"
echo "default build,  libm without FMA: $am"
echo "baseline build, libm without FMA (software fma): $bm"
case "$a" in *no-avx2*) echo "note: this CPU has no AVX2, both builds ran the baseline kernels" ;; esac
[ "${a%% *}" = "${b%% *}" ] || { echo "FAIL: the fingerprints differ"; exit 1; }
[ "${am%% *}" = "${bm%% *}" ] || { echo "FAIL: the fingerprints differ with libm's FMA variants masked"; exit 1; }
[ "${am%% *}" = "$golden" ] || {
  echo "FAIL: the pinned fingerprint is not the committed one ($golden): the kernels' bits differ from this tree's on this CPU, or the kernels changed (then update $3)"
  exit 1
}
echo "same bits, and the committed pinned fingerprint"
