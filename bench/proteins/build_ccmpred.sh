#!/usr/bin/env bash
# Builds the peer CCMpred (CPU only) into DEST/bin/ccmpred from a folder of
# source archives: ccmpred-<commit>.tar.gz and libconjugrad-<commit>.tar.gz
# (the repository's submodule).
#   build_ccmpred.sh SOURCES DEST
# CCMpred's CMakeLists (2919b9c) hands -fopenmp to C++ only, through the
# OpenMP::OpenMP_CXX target, while its sources are C: the "#pragma omp" loops
# compile serial and -t K runs one thread. Its CMakeLists also sets
# CMAKE_C_FLAGS itself, so -fopenmp comes in through the release flags, which
# it leaves alone. The build is checked: the binary must call GOMP_parallel.
# Needs cmake, make and a C compiler (cmake is installed from Debian if
# missing).
set -euo pipefail
die() { echo "build_ccmpred: $*" >&2; exit 1; }
[[ $# -eq 2 ]] || die "usage: build_ccmpred.sh SOURCES DEST"
sources=$(cd "$1" && pwd) || die "$1: no such folder"
dest=$2
ccm=$(ls "$sources"/ccmpred-*.tar.gz 2>/dev/null | head -1)
cg=$(ls "$sources"/libconjugrad-*.tar.gz 2>/dev/null | head -1)
[[ -n $ccm ]] || die "$sources: no ccmpred-*.tar.gz"
[[ -n $cg ]] || die "$sources: no libconjugrad-*.tar.gz"
command -v cmake >/dev/null || apt-get install -y -q cmake >/dev/null || die "cmake missing and not installable"
mkdir -p "$dest"
cd "$dest"
rm -rf CCMpred
tar xzf "$ccm"
[[ -d CCMpred ]] || die "$ccm: expected a top folder CCMpred"
rm -rf CCMpred/lib/libconjugrad
tar xzf "$cg" -C CCMpred/lib
# libconjugrad's header uses fabs without including math.h, which newer
# compilers refuse.
sed -i '1i #include <math.h>' CCMpred/lib/libconjugrad/include/conjugrad.h
cd CCMpred
{
  cmake -Wno-dev -DWITH_CUDA=OFF -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE=-fopenmp \
    -DCMAKE_EXE_LINKER_FLAGS=-fopenmp . && make -j"$(nproc)"
} >build.log 2>&1 || { tail -n 20 build.log >&2; die "the build failed (log: $dest/CCMpred/build.log)"; }
nm -D bin/ccmpred | grep -q ' GOMP_parallel' || die "bin/ccmpred calls no GOMP_parallel: its -t would run one thread"
ln -sfn "$dest/CCMpred/bin" "$dest/bin"
basename "$ccm" .tar.gz >"$dest/SOURCE"
echo "$dest/bin/ccmpred"
