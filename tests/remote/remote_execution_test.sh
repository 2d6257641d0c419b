#!/usr/bin/env bash
# Remote execution, end to end: tools/reapi-worker (Bazel's reference REAPI
# worker on loopback) and nested Bazel builds of the quick DAG
# (//paper:quick_index) with --config=remote in a copy of this workspace:
#   1. the worker is killed 45 s into a cold build: Bazel must fail with a
#      clear error naming the service, and results/ must be untouched;
#   2. the same build against a new worker: every Stage action runs remotely
#      (execution log), and every stage data file equals the local build's;
#   3. after `bazel clean`: every Stage action is a remote cache hit.
# Provenance records are compared apart from the byte comparison: equal to
# the local build's once the volatile fields (kVolatileProvenanceFields:
# times, host threads, code version) are dropped (same_provenance).
set -euo pipefail

TARGET=//paper:quick_index
KILL_AFTER=45

fail() { echo "FAIL: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

t_start=$(now)
work="${TEST_TMPDIR:?run under bazel test}"
runfiles="$TEST_SRCDIR/$TEST_WORKSPACE"
worker_src=$(readlink -f "$runfiles/tools/reapi-worker")
root=$(cd "$(dirname "$worker_src")/.." && pwd)
[[ -f $root/WORKSPACE && -x $root/tools/bazel ]] || fail "$root: not the workspace (no WORKSPACE or tools/bazel)"

src="$work/src"
mkdir -p "$src" "$work/home" "$work/user_root"
# What the quick DAG needs, and results/ to check that it is left alone (no
# bazel-* symlinks, no user.bazelrc).
cp -R "$root/WORKSPACE" "$root/BUILD" "$root/.bazelrc" "$root/lib" "$root/stages" \
  "$root/third_party" "$root/tools" "$root/paper" "$root/results" "$src/"
worker="$src/tools/reapi-worker"
# Bazel's test environment has no HOME: the worker is compiled into this one.
export HOME="$work/home"

cleanup() {
  "$worker" stop "$work/w1" >/dev/null 2>&1 || true
  "$worker" stop "$work/w2" >/dev/null 2>&1 || true
  # Nested output bases and the workers' trees are large; TEST_TMPDIR stays small.
  chmod -R u+w "$work"/ob? "$work/user_root" "$work"/w? 2>/dev/null || true
  rm -rf "$work"/ob? "$work/user_root" "$work"/w?
}
trap cleanup EXIT

results_hash() { (cd "$src/results" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum); }
results_before=$(results_hash)

start_worker() {  # start_worker DIR: prints the endpoint
  "$worker" start "$1" --jobs 2 >"$1.out" 2>&1 || { cat "$1.out" >&2; fail "tools/reapi-worker start $1 failed"; }
  tail -1 "$1.out"
}

# nested N OB ENDPOINT: build TARGET remotely in output base OB, execution
# log exec<N>.json, output in log<N>; returns Bazel's exit code.
nested() {
  local n=$1 ob=$2 endpoint=$3
  (cd "$src" && env HOME="$work/home" POTTS_REMOTE_EXECUTOR="$endpoint" tools/bazel --batch \
    --output_user_root="$work/user_root" --output_base="$work/$ob" \
    build --config=remote --jobs=2 --symlink_prefix=/ \
    --execution_log_json_file="$work/exec$n.json" "$TARGET") >"$work/log$n" 2>&1
}

# stage_actions N: "<runner> <remoteCacheHit> <target>" per Stage action.
stage_actions() {
  awk '
    /"progressMessage":/ { msg = $0; sub(/.*"progressMessage": "Stage /, "", msg); sub(/",?$/, "", msg) }
    /"mnemonic":/ { stage = ($0 ~ /"mnemonic": "Stage"/) }
    /"runner":/ { runner = $0; sub(/.*"runner": "/, "", runner); sub(/",?$/, "", runner) }
    /"remoteCacheHit":/ { if (stage) print runner, (($0 ~ /true/) ? "hit" : "miss"), msg; stage = 0 }
  ' "$work/exec$1.json"
}

# stage_outputs N: "<path under bin/> <sha256>" per output of a Stage action.
stage_outputs() {
  awk '
    /"mnemonic":/ { stage = ($0 ~ /"mnemonic": "Stage"/) }
    stage && /"path":/ { p = $0; sub(/.*"path": "bazel-out\/[^\/]*\/bin\//, "", p); sub(/",?$/, "", p) }
    stage && /"hash":/ { h = $0; sub(/.*"hash": "/, "", h); sub(/",?$/, "", h); print p, h }
    /"remoteCacheHit":/ { stage = 0 }
  ' "$work/exec$1.json"
}

# 1. The worker dies in the middle of a cold build.
ep1=$(start_worker "$work/w1")
echo "worker 1: $ep1"
t=$(now)
nested 1 ob1 "$ep1" &
build=$!
sleep "$KILL_AFTER"
"$worker" stop "$work/w1"
set +e
wait "$build"
rc=$?
set -e
echo "build 1 (worker killed after ${KILL_AFTER} s): exit $rc in $(elapsed "$t") s"
[[ $rc -ne 0 ]] || fail "build 1 succeeded although its worker was killed (did it finish within ${KILL_AFTER} s?)"
grep -m1 -E 'UNAVAILABLE|Connection refused|io exception' "$work/log1" ||
  { tail -30 "$work/log1" >&2; fail "build 1 failed without naming the unreachable service; log above"; }
[[ $(results_hash) == "$results_before" ]] || fail "results/ changed during the failed build"
chmod -R u+w "$work/ob1" 2>/dev/null || true
rm -rf "$work/ob1"

# 2. The same build against a new worker (and a new output base, so that no
# action finished by the first worker is skipped): completes, every Stage
# action remote.
ep2=$(start_worker "$work/w2")
echo "worker 2: $ep2"
t=$(now)
set +e; nested 2 ob2 "$ep2"; rc=$?; set -e
echo "build 2: exit $rc in $(elapsed "$t") s; $(grep -E '^INFO: [0-9]+ processes' "$work/log2" || echo 'no process summary')"
[[ $rc -eq 0 ]] || { tail -30 "$work/log2" >&2; fail "build 2 exited $rc; log above"; }
stage_actions 2 >"$work/stages2"
n_stages=$(grep -c . "$work/stages2")
[[ $n_stages -ge 50 ]] || fail "build 2: expected the quick DAG's Stage actions (50 or more) in exec2.json, found $n_stages"
if grep -v '^remote ' "$work/stages2" >"$work/notremote"; then
  fail "build 2: Stage actions not run remotely: $(tr '\n' ';' <"$work/notremote")"
fi
echo "build 2: all $n_stages Stage actions ran on the worker"

# Every stage data file equals the local build's (this test's runfiles).
stage_outputs 2 | grep -v '/provenance.json ' >"$work/outputs2"
compared=0
while read -r path sum; do
  local_file="$runfiles/$path"
  [[ -f $local_file ]] || fail "no local output $path among the runfiles of //tests/remote:quick_outputs"
  [[ $(sha256sum "$local_file" | cut -d' ' -f1) == "$sum" ]] ||
    fail "$path: remote output (sha256 $sum) differs from the local build's"
  compared=$((compared + 1))
done <"$work/outputs2"
[[ $compared -ge 100 ]] || fail "build 2: only $compared stage data files compared"
echo "build 2: $compared stage data files byte-identical to the local build"

# Every provenance record equals the local build's but for the fields that
# name the run (when, how long, which commit): no worker path in them.
same_provenance="$runfiles/tests/remote/same_provenance"
records=0
while read -r path sum; do
  out2=$(find "$work/ob2/execroot" -path "*/bin/$path" -print -quit)
  [[ -n $out2 ]] || fail "build 2: $path not downloaded from the worker"
  "$same_provenance" "$runfiles/$path" "$out2" || fail "$path: remote provenance differs from the local build's (above)"
  ! grep -q "$work" "$out2" || fail "$path: names the worker's directory $work"
  records=$((records + 1))
done < <(stage_outputs 2 | grep '/provenance.json ')
[[ $records -eq $n_stages ]] || fail "build 2: $records provenance records compared, $n_stages Stage actions"
echo "build 2: all $records provenance records equal the local build's but for time, host threads and code version"
[[ $(results_hash) == "$results_before" ]] || fail "results/ changed during the remote build"

# 3. After bazel clean: every Stage action served from the worker's cache.
(cd "$src" && env HOME="$work/home" tools/bazel --batch --output_user_root="$work/user_root" \
  --output_base="$work/ob2" clean) >"$work/clean.log" 2>&1 || { cat "$work/clean.log" >&2; fail "bazel clean failed"; }
t=$(now)
set +e; nested 3 ob2 "$ep2"; rc=$?; set -e
echo "build 3 (after bazel clean): exit $rc in $(elapsed "$t") s"
[[ $rc -eq 0 ]] || { tail -30 "$work/log3" >&2; fail "build 3 exited $rc; log above"; }
stage_actions 3 >"$work/stages3"
[[ $(grep -c . "$work/stages3") -eq $n_stages ]] || fail "build 3: $(grep -c . "$work/stages3") Stage actions, build 2 had $n_stages"
if grep -v ' hit ' "$work/stages3" >"$work/misses"; then
  fail "build 3: Stage actions not served by the remote cache: $(tr '\n' ';' <"$work/misses")"
fi
echo "build 3: all $n_stages Stage actions were remote cache hits"
echo "PASS in $(elapsed "$t_start") s"
