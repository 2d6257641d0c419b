#!/usr/bin/env bash
# Remote execution, end to end: tools/reapi-worker (Bazel's reference REAPI
# worker on loopback) and nested Bazel builds with --config=remote in a copy
# of this workspace, of the smallest DAG that has what the quick DAG has:
# a chain of two real stages (the Gaussian model -> a chunk of its
# simulation: HDF5 between stages, BLAS, the provenance runtime) and a
# stage of a few seconds beside it (a finite-size simulation), their
# compiles and links; the stages that train networks would add the
# compiles of lib/nn, which prove nothing more about remote execution:
#   1. the worker is killed while it runs the longest Stage action (the
#      compiles done): Bazel must fail with a clear error naming the
#      service, and results/ must be untouched;
#   2. the same build against a new worker on the same CAS directory, which
#      this test created and only worker 1 wrote: what worker 1 finished
#      (the compiles, the stages it finished) is a remote cache hit, so it ran
#      remotely; the killed stage runs on worker 2 (execution log); every
#      stage data file equals the local build's;
#   3. after `bazel clean`: every Stage action is a remote cache hit.
# Provenance records are compared apart from the byte comparison: equal to
# the local build's once the volatile fields (kVolatileProvenanceFields:
# times, host threads, code version) are dropped (same_provenance).
# The worker is compiled once per machine, into the outer user's cache
# (tools/reapi-worker build; .ci/run does it before the tests).
set -euo pipefail

TARGETS=(//stages/gaussian_sim:quick_chunk_0 //stages/gaussian_sim:quick_finite_size_d160)
# Stage actions: the chain's two and the finite-size stage.
N_STAGES=3
# The longest Stage action (seconds), killed mid-action in build 1.
KILL_STAGE=//stages/gaussian_sim:quick_finite_size_d160
KILL_WITHIN=900  # seconds for the compiles before it

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
  "$root/third_party" "$root/tools" "$root/paper" "$root/results" "$root/proteins" "$src/"
worker="$src/tools/reapi-worker"
# shellcheck source=tests/util/nested_bazel.sh
source "$runfiles/tests/util/nested_bazel.sh"
# The nested clients get a HOME of their own; the worker's compiled classes
# come from the outer user's cache when there is one (compiled once per
# machine), else from this HOME.
export HOME="$work/home"
if [[ -n ${POTTS_CLIENT_CACHE:-} && -d $POTTS_CLIENT_CACHE ]]; then
  export XDG_CACHE_HOME="$POTTS_CLIENT_CACHE"
fi

cleanup() {
  "$worker" stop "$work/w1" >/dev/null 2>&1 || true
  "$worker" stop "$work/w2" >/dev/null 2>&1 || true
  # Nested output bases and the workers' trees are large; TEST_TMPDIR stays small.
  chmod -R u+w "$work"/ob? "$work/user_root" "$work"/w? "$work/cas" 2>/dev/null || true
  rm -rf "$work"/ob? "$work/user_root" "$work"/w? "$work/cas"
}
trap cleanup EXIT

results_hash() { (cd "$src/results" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum); }
results_before=$(results_hash)

start_worker() {  # start_worker DIR: prints the endpoint; both workers share one CAS directory
  mkdir -p "$1" "$work/cas"
  ln -sfn "$work/cas" "$1/cas"
  "$worker" start "$1" --jobs 2 >"$1.out" 2>&1 || { cat "$1.out" >&2; fail "tools/reapi-worker start $1 failed"; }
  tail -1 "$1.out"
}

# nested N OB ENDPOINT: build TARGETS remotely in output base OB, execution
# log exec<N>.json, output in log<N>; returns Bazel's exit code. (A remote
# executor excludes a disk cache in Bazel 4.2.3: no outer cache flags here.)
nested() {
  local n=$1 ob=$2 endpoint=$3
  (cd "$src" && env HOME="$work/home" "${OUTER_ENV[@]}" POTTS_REMOTE_EXECUTOR="$endpoint" tools/bazel --batch \
    --output_user_root="$work/user_root" --output_base="$work/$ob" \
    build --config=remote --jobs=2 --symlink_prefix=/ \
    --execution_log_json_file="$work/exec$n.json" "${TARGETS[@]}") >"$work/log$n" 2>&1
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

# 1. The worker dies in the middle of a Stage action: the last stage's
# process is seen running under the worker, then the worker is killed.
ep1=$(start_worker "$work/w1")
echo "worker 1: $ep1"
t=$(now)
nested 1 ob1 "$ep1" &
build=$!
seen=""
deadline=$((SECONDS + KILL_WITHIN))
while ((SECONDS < deadline)) && kill -0 "$build" 2>/dev/null; do
  if pgrep -f -- "--target $KILL_STAGE " >/dev/null; then seen=1; break; fi
  sleep 0.05
done
[[ -n $seen ]] || { kill "$build" 2>/dev/null; "$worker" stop "$work/w1" >/dev/null; tail -30 "$work/log1" >&2
  fail "build 1: $KILL_STAGE never ran on the worker within ${KILL_WITHIN} s (log above)"; }
# The service dies, as a crashed host would: SIGKILL to the worker's JVM
# alone (stopping its process group would end the action first, and Bazel
# would report the action's signal instead of the lost service); then the
# orphaned action, the rest of that group.
w1_pid=$(<"$work/w1/.worker/pid")
echo "build 1: $KILL_STAGE running on worker 1 after $(elapsed "$t") s: killing the worker (pid $w1_pid)"
kill -KILL "$w1_pid"
set +e
wait "$build"
rc=$?
set -e
kill -KILL -- "-$w1_pid" 2>/dev/null || true
echo "build 1 (worker killed mid-action): exit $rc in $(elapsed "$t") s"
[[ $rc -ne 0 ]] || fail "build 1 succeeded although its worker was killed while it ran $KILL_STAGE"
grep -m1 -E 'UNAVAILABLE|Connection refused|io exception' "$work/log1" ||
  { tail -30 "$work/log1" >&2; fail "build 1 failed without naming the unreachable service; log above"; }
[[ $(results_hash) == "$results_before" ]] || fail "results/ changed during the failed build"
chmod -R u+w "$work/ob1" 2>/dev/null || true
rm -rf "$work/ob1"

# 2. The same build against a new worker (on the same CAS, and a new output
# base, so that no action is skipped locally): completes; every Stage action
# ran remotely, on worker 2 or (a remote cache hit in this test's own CAS)
# on worker 1, and the killed one on worker 2.
ep2=$(start_worker "$work/w2")
echo "worker 2: $ep2"
t=$(now)
set +e; nested 2 ob2 "$ep2"; rc=$?; set -e
echo "build 2: exit $rc in $(elapsed "$t") s; $(grep -E '^INFO: [0-9]+ processes' "$work/log2" || echo 'no process summary')"
[[ $rc -eq 0 ]] || { tail -30 "$work/log2" >&2; fail "build 2 exited $rc; log above"; }
stage_actions 2 >"$work/stages2"
n_stages=$(grep -c . "$work/stages2")
[[ $n_stages -eq $N_STAGES ]] || fail "build 2: expected $N_STAGES Stage actions in exec2.json, found $n_stages"
# "<runner> <hit|miss> <target>": run by the worker ("remote", a miss) or
# served from its cache (a hit, runner "remote cache hit").
if awk '{ hit = $(NF - 1); runner = $0; sub(/ [^ ]+ [^ ]+$/, "", runner)
          if (!((hit == "miss" && runner == "remote") || (hit == "hit" && runner ~ /remote/))) print }' \
    "$work/stages2" | grep . >"$work/notremote"; then
  fail "build 2: Stage actions neither run remotely nor served from the worker's cache: $(tr '\n' ';' <"$work/notremote")"
fi
grep -q "^remote miss $KILL_STAGE\$" "$work/stages2" ||
  fail "build 2: $KILL_STAGE (killed in build 1) did not run on worker 2: $(tr '\n' ';' <"$work/stages2")"
echo "build 2: all $n_stages Stage actions ran remotely ($(grep -c '^remote miss ' "$work/stages2") on worker 2, the rest on worker 1)"

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
# (runfiles are symlinks: find -L)
n_local=$(find -L "$runfiles/stages/gaussian_sim/quick_model" "$runfiles/stages/gaussian_sim/quick_chunk_0" \
  "$runfiles/stages/gaussian_sim/quick_finite_size_d160" -type f ! -name provenance.json | wc -l)
[[ $compared -ge 6 && $compared -eq $n_local ]] ||
  fail "build 2: $compared stage data files compared, the local build has $n_local"
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
