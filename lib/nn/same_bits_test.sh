#!/bin/sh
# The lib/nn kernels give the same bits with the AVX2 clones (picked on an
# AVX2 machine) as with the baseline-only build. On a machine without AVX2
# both builds run the baseline code and the test says so.
#
# Second pair: both builds again with glibc's FMA and AVX2 variants masked,
# the libm the stages pin (lib/core/numeric_env.h). There the baseline
# build's fma() calls take glibc's software path, which is what a CPU
# without FMA runs, while the default build still uses the FMA instruction:
# the fused factored-attention kernel must give the same bits either way.
# (The two pairs may differ from each other: libm's log is another variant.)
set -eu
masked="glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4"
a=$("$1")
b=$("$2")
am=$(GLIBC_TUNABLES=$masked "$1")
bm=$(GLIBC_TUNABLES=$masked "$2")
echo "default build:  $a"
echo "baseline build: $b"
echo "default build,  libm without FMA: $am"
echo "baseline build, libm without FMA (software fma): $bm"
case "$a" in *no-avx2*) echo "note: this CPU has no AVX2, both builds ran the baseline kernels" ;; esac
[ "${a%% *}" = "${b%% *}" ] || { echo "FAIL: the fingerprints differ"; exit 1; }
[ "${am%% *}" = "${bm%% *}" ] || { echo "FAIL: the fingerprints differ with libm's FMA variants masked"; exit 1; }
echo "same bits"
