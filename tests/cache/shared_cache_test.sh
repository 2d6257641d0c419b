#!/usr/bin/env bash
# The shared remote cache, end to end: tools/cache-server (nginx, WebDAV) on
# a free loopback port, and three nested Bazel builds of a copy of this
# workspace in which the first stage's configuration carries a comment no
# earlier build used (so that its actions and the next stage's are new to
# every cache):
#   1. --config=shared-cache from user.bazelrc, with the outer build's disk
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

TARGETS=(//stages/sample:quick //stages/train:quick_factored)
STAGE_DIRS=(stages/sample/quick stages/train/quick_factored)
# The entry to corrupt: an output of the first stage.
CORRUPT=stages/sample/quick/train.h5

fail() { echo "FAIL: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

t_start=$(now)
work="${TEST_TMPDIR:?run under bazel test}"
# The workspace's own sources: the runfile of tools/cache-server is a symlink
# into the source tree.
server_src=$(readlink -f "$TEST_SRCDIR/$TEST_WORKSPACE/tools/cache-server")
root=$(cd "$(dirname "$server_src")/.." && pwd)
[[ -f $root/WORKSPACE && -x $root/tools/bazel ]] || fail "$root: not the workspace (no WORKSPACE or tools/bazel)"

# shellcheck source=tests/util/nested_bazel.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/util/nested_bazel.sh"

src="$work/src"
cache="$work/cache"
mkdir -p "$src" "$work/home" "$work/user_root"
# Only what the targets need (no results/, no bazel-* symlinks, no user.bazelrc).
cp -R "$root/WORKSPACE" "$root/BUILD" "$root/.bazelrc" "$root/lib" "$root/stages" \
  "$root/third_party" "$root/tools" "$root/paper" "$src/"
server="$src/tools/cache-server"

# A configuration no earlier build used for the first stage
# (//stages/sample:quick): its "_comment" gets a unique tag. The config
# file's digest is in the stage's action key (and in its record), so the
# stage and the training after it are new to every cache; the sampled data
# are the same bytes (a seed would change them, and the calibration of beta
# is not guaranteed for every seed).
salt="cache test $(date +%s%N) $$"
config="$src/stages/sample/configs/quick.json"
grep -q '^  "_comment": "' "$config" || fail "$config: no top-level \"_comment\" to tag"
sed -i "0,/^  \"_comment\": \"/s//  \"_comment\": \"[$salt] /" "$config"
grep -q "\[$salt\]" "$config" || fail "$config: tagging its \"_comment\" failed"
echo "//stages/sample:quick with its comment tagged [$salt]"

port=""
cleanup() {
  "$server" stop "$cache" >/dev/null 2>&1 || true
  # Nested output bases hold read-only trees; remove them so TEST_TMPDIR stays small.
  chmod -R u+w "$work"/ob* "$work/user_root" 2>/dev/null || true
  rm -rf "$work"/ob* "$work/user_root"
}
trap cleanup EXIT

# A free port: one nothing listens on, retried if nginx cannot bind it.
for try in 1 2 3 4 5 6 7 8 9 10; do
  p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then continue; fi
  if "$server" start "$cache" "$p" >"$work/server.out" 2>&1; then port=$p; break; fi
  cat "$work/server.out" >&2
done
[[ -n $port ]] || fail "tools/cache-server: could not start on a free port (see above)"
url="http://127.0.0.1:$port"
echo "cache server: $url, serving $cache"

# nested N [extra env...]: build TARGETS in the output base ob, execution
# log exec<N>.json, output in log<N>; sets rc. Build 1 has the outer build's
# disk cache, the others none (only the server can serve them).
nested() {
  local n=$1 t
  shift
  local disk=(--disk_cache=)
  ((n == 1)) && disk=("${OUTER_CACHE_FLAGS[@]}")
  t=$(now)
  set +e
  (cd "$src" && env HOME="$work/home" "${OUTER_ENV[@]}" "$@" tools/bazel --batch \
    --output_user_root="$work/user_root" --output_base="$work/ob" \
    build --config=shared-cache --noincompatible_strict_action_env "${disk[@]}" --jobs=2 \
    --symlink_prefix=/ --execution_log_json_file="$work/exec$n.json" \
    "${TARGETS[@]}") >"$work/log$n" 2>&1
  rc=$?
  set -e
  echo "build $n: exit $rc in $(elapsed "$t") s; $(grep -E '^INFO: [0-9]+ processes' "$work/log$n" || echo 'no process summary')"
}

out_dir() {  # out_dir N DIR: where build N wrote a stage's outputs
  local d
  for d in "$work/ob"/execroot/*/bazel-out/*/bin/"$2"; do
    [[ -d $d ]] && { echo "$d"; return; }
  done
  fail "build $1: no output directory $2 under $work/ob"
}

drop_stage_outputs() {  # the Stage actions' outputs, so the next build must fetch or rerun them
  local d o
  for d in "${STAGE_DIRS[@]}"; do
    o=$(out_dir 0 "$d")
    chmod -R u+w "$o" && rm -rf "$o"
  done
}

hashes() {  # hashes N [EXCLUDE]: "dir/file sha256" of every stage output of build N
  local d f o
  for d in "${STAGE_DIRS[@]}"; do
    o=$(out_dir "$1" "$d")
    for f in "$o"/*; do
      [[ -n ${2:-} && $(basename "$f") == "$2" ]] && continue
      echo "$d/$(basename "$f") $(sha256sum "$f" | cut -d' ' -f1)"
    done
  done
}

stage_actions() {  # stage_actions N: "<remoteCacheHit> <progress message>" per Stage action
  awk '
    /"progressMessage":/ { msg = $0; sub(/.*"progressMessage": "/, "", msg); sub(/",?$/, "", msg) }
    /"mnemonic":/ { stage = ($0 ~ /"mnemonic": "Stage"/) }
    /"remoteCacheHit":/ { if (stage) { hit = ($0 ~ /true/) ? "hit" : "miss"; print hit, msg }; stage = 0 }
  ' "$work/exec$1.json"
}

# 1. Cold build: the URL from user.bazelrc (the committed .bazelrc imports it).
echo "build:shared-cache --remote_cache=$url" >"$src/user.bazelrc"
nested 1
[[ $rc -eq 0 ]] || { tail -30 "$work/log1" >&2; fail "build 1 (cold) exited $rc; log above"; }
[[ -n $(ls -A "$cache/cas") ]] || fail "$cache/cas: empty after build 1; nothing was uploaded"
hashes 1 >"$work/hashes1"
[[ $(wc -l <"$work/hashes1") -ge 8 ]] || fail "build 1: expected the outputs of ${#STAGE_DIRS[@]} stages, found: $(cat "$work/hashes1")"
stage_actions 1 >"$work/stages1"
if grep -q '^hit' "$work/stages1"; then fail "build 1: Stage actions served by a cache although their configuration is new: $(grep '^hit' "$work/stages1" | tr '\n' ';')"; fi
[[ $(grep -c . "$work/stages1") -eq ${#TARGETS[@]} ]] || fail "build 1: expected ${#TARGETS[@]} Stage actions run, found $(grep -c . "$work/stages1")"
echo "build 1: both Stage actions ran and were uploaded"

# 2. Cache-hit build: the URL from POTTS_CACHE_URL, no user.bazelrc.
rm "$src/user.bazelrc"
drop_stage_outputs
nested 2 POTTS_CACHE_URL="$url"
[[ $rc -eq 0 ]] || { tail -30 "$work/log2" >&2; fail "build 2 (cache hit) exited $rc; log above"; }
stage_actions 2 >"$work/stages2"
cat "$work/stages2"
[[ $(grep -c . "$work/stages2") -eq ${#TARGETS[@]} ]] || fail "build 2: expected ${#TARGETS[@]} Stage actions in exec2.json, found $(grep -c . "$work/stages2")"
if grep -q '^miss' "$work/stages2"; then fail "build 2: Stage actions not served by the remote cache: $(grep '^miss' "$work/stages2" | tr '\n' ';')"; fi
hashes 2 >"$work/hashes2"
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
drop_stage_outputs
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
  hashes 1 provenance.json >"$work/data1"
  hashes 3 provenance.json >"$work/data3"
  diff "$work/data1" "$work/data3" >&2 || fail "build 3: stage outputs differ from build 1 after the cache entry was corrupted (sha256 above)"
  echo "build 3: the corrupt entry was detected and ${TARGETS[0]} rerun; $(wc -l <"$work/data3") data files byte-identical to build 1"
  if [[ $(sha256sum "$entry" | cut -d' ' -f1) == "$sum" ]]; then echo "build 3: the cache entry was repaired by the rerun's upload"; fi
fi
echo "PASS in $(elapsed "$t_start") s"
