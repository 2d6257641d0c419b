#!/usr/bin/env bash
# The shared remote cache, end to end: tools/cache-server (nginx, WebDAV) on
# a free loopback port, and three nested Bazel builds of a copy of this
# workspace in which the first stage's configuration carries a comment no
# earlier build used (so that its actions and the next stage's are new to
# every cache):
#   1. --config=shared-cache-writer from user.bazelrc, with the outer build's disk
#      cache for the compiles: both Stage actions run and fill the cache;
#   2. POTTS_CACHE_URL instead, no disk cache, the Stage actions' outputs
#      deleted from the output base (so that Bazel must fetch them, as a
#      second machine would; the compiled binaries stay): every Stage action
#      must be a remote cache hit and every stage output byte-identical to
#      build 1;
#   3. after one stage output's CAS entry is corrupted (outputs deleted
#      again): Bazel verifies the digest of every download, so the build
#      must either fail naming the digest or rerun that stage; the data
#      files must equal build 1's.
# The nested builds keep the outer client's action environment
# (--noincompatible_strict_action_env and its PATH) so that the compiles'
# keys are the outer build's; a Stage action sets its own environment, so
# its key, which this test is about, is the same either way.
#      (What Bazel 4.2.3 does: it warns "download failed: Expected digest
#      ... does not match received digest ...", reruns the stage locally and
#      uploads the correct blob again.)
set -euo pipefail

# The entry to corrupt: an output of the first stage.
CORRUPT=stages/sample/quick/train.h5

t_start=$SECONDS
work="${TEST_TMPDIR:?run under bazel test}"
# shellcheck source=tests/util/nested_bazel.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/util/nested_bazel.sh"
# shellcheck source=tests/cache/cache_lib.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/cache/cache_lib.sh"
workspace_root

src="$work/src"
# The cache outside TEST_TMPDIR: started as root, the server's workers run
# as potts-cache, which cannot enter /root where Bazel keeps TEST_TMPDIR.
cache=$(mktemp -d /tmp/potts-cache-test.XXXXXX)
chmod 0711 "$cache"
mkdir -p "$work/home" "$work/user_root"
copy_workspace "$src"

trap '"$root/tools/cache-server" stop "$cache" >/dev/null 2>&1 || true; cleanup_nested; rm -rf "$cache"' EXIT
# Anonymous writes on loopback: this test is about what the cache stores;
# credentials are trusted_cache_test's.
start_server "$cache" --open
url="http://127.0.0.1:$port"

# nested N [extra env...]: build 1 has the outer build's disk cache, the
# others none (only the server can serve them).
nested() {
  local n=$1
  shift
  nested_build "$n" "$src" "$work/ob" shared-cache-writer "$( ((n == 1)) && echo outer || echo none)" "$@"
}

# 1. Cold build: the URL from user.bazelrc (the committed .bazelrc imports it).
echo "build:shared-cache-writer --remote_cache=$url" >"$src/user.bazelrc"
nested 1
[[ $rc -eq 0 ]] || { tail -30 "$work/log1" >&2; fail "build 1 (cold) exited $rc; log above"; }
[[ -n $(ls -A "$cache/cas") ]] || fail "$cache/cas: empty after build 1; nothing was uploaded"
hashes "$work/ob" >"$work/hashes1"
[[ $(wc -l <"$work/hashes1") -ge 8 ]] || fail "build 1: expected the outputs of ${#STAGE_DIRS[@]} stages, found: $(cat "$work/hashes1")"
stage_actions 1 >"$work/stages1"
if grep -q '^hit' "$work/stages1"; then fail "build 1: Stage actions served by a cache although their configuration is new: $(grep '^hit' "$work/stages1" | tr '\n' ';')"; fi
[[ $(grep -c . "$work/stages1") -eq ${#TARGETS[@]} ]] || fail "build 1: expected ${#TARGETS[@]} Stage actions run, found $(grep -c . "$work/stages1")"
echo "build 1: both Stage actions ran and were uploaded"

# 2. Cache-hit build: the URL from POTTS_CACHE_URL, no user.bazelrc.
rm "$src/user.bazelrc"
drop_stage_outputs "$work/ob"
nested 2 POTTS_CACHE_URL="$url"
[[ $rc -eq 0 ]] || { tail -30 "$work/log2" >&2; fail "build 2 (cache hit) exited $rc; log above"; }
stage_actions 2 >"$work/stages2"
cat "$work/stages2"
[[ $(grep -c . "$work/stages2") -eq ${#TARGETS[@]} ]] || fail "build 2: expected ${#TARGETS[@]} Stage actions in exec2.json, found $(grep -c . "$work/stages2")"
if grep -q '^miss' "$work/stages2"; then fail "build 2: Stage actions not served by the remote cache: $(grep '^miss' "$work/stages2" | tr '\n' ';')"; fi
hashes "$work/ob" >"$work/hashes2"
diff "$work/hashes1" "$work/hashes2" >&2 || fail "build 2: stage outputs differ from build 1 (sha256 above)"
echo "build 2: ${#TARGETS[@]} Stage actions all remote cache hits; $(wc -l <"$work/hashes2") outputs byte-identical to build 1"

# 3. Corrupt the CAS entry of one stage output (same size, one byte flipped).
sum=$(grep "^$CORRUPT " "$work/hashes1" | cut -d' ' -f2)
entry="$cache/cas/$sum"
[[ -f $entry ]] || fail "$entry: no CAS entry for $CORRUPT"
size=$(stat -c %s "$entry")
byte=$(od -An -tu1 -j $((size / 2)) -N1 "$entry" | tr -d ' ')
printf "$(printf '\\%03o' $((255 - byte)))" | dd of="$entry" bs=1 seek=$((size / 2)) conv=notrunc status=none
[[ $(sha256sum "$entry" | cut -d' ' -f1) != "$sum" ]] || fail "$entry: corrupting it did not change its digest"
drop_stage_outputs "$work/ob"
nested 3 POTTS_CACHE_URL="$url"
if [[ $rc -ne 0 ]]; then
  grep -qi 'digest' "$work/log3" || { tail -30 "$work/log3" >&2; fail "build 3 failed without naming a digest mismatch; log above"; }
  echo "build 3: failed with a digest error (no wrong output): $(grep -i -m1 'digest' "$work/log3")"
else
  grep -i -m1 'does not match' "$work/log3" || echo "(no digest warning printed)"
  stage_actions 3 >"$work/stages3"
  cat "$work/stages3"
  grep -q "^miss Stage ${TARGETS[0]}\$" "$work/stages3" || fail "build 3: ${TARGETS[0]} was not rerun although its cached $CORRUPT is corrupt"
  # Data files only: a rerun stage writes a new provenance record (wall time).
  grep -v "/provenance.json " "$work/hashes1" >"$work/data1"
  hashes "$work/ob" provenance.json >"$work/data3"
  diff "$work/data1" "$work/data3" >&2 || fail "build 3: stage outputs differ from build 1 after the cache entry was corrupted (sha256 above)"
  echo "build 3: the corrupt entry was detected and ${TARGETS[0]} rerun; $(wc -l <"$work/data3") data files byte-identical to build 1"
  if [[ $(sha256sum "$entry" | cut -d' ' -f1) == "$sum" ]]; then echo "build 3: the cache entry was repaired by the rerun's upload"; fi
fi
echo "PASS in $((SECONDS - t_start)) s"
