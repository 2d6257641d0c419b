#!/usr/bin/env bash
# Early cutoff: a stage that reruns and writes the same bytes reruns nothing
# below it but the steps that read records. In a copy of this workspace, a
# nested Bazel builds the quick DAG (//paper:quick and its runfiles), then
# the sample stage's binary is changed without changing what it writes (its
# --help text), and the DAG is built again with Bazel's execution log.
# Every Stage action of the second build is classified by its command:
#  * the sample binary's: they must have run (the change is real);
#  * a figure's or the paper's (the presentation steps, which read the
#    records of the stages they cite): may rerun, since the sample stage's
#    records changed (times, tool hash);
#  * any other: a science stage below the sample stage, which must not rerun,
#    because every input it reads kept its bytes.
# With records as action inputs of every stage (the stage rule before
# records left the action graph), every stage below the sample stage reruns
# and this test fails, naming them.
#
# Then the same change outside Bazel: //paper:refresh --plan on the quick
# results collected before it (a stand-in for results/) names the sample
# stages and the presentation steps, with their records' times, and writes
# nothing; //paper:refresh reruns the sample stages,
# which reproduce their bytes, and the presentation steps, and nothing else;
# every data file keeps its bytes and the tree passes its audit. After a
# change that alters the sample's output (its configuration), the refresh
# names the stage as DIFFERS, exits 1 and leaves the tree byte for byte.
# With --regenerate, a change of what the replica stage writes is kept: NEW,
# the stages below it rerun, only data files below it change, and the tree
# passes its audit.
#
# Nested Bazel has its own output base; compiles come from the outer build's
# disk cache (nested_bazel.sh). The build is cacheable
# (--define=stage_code_version=off), so that no action depends on the
# volatile workspace status.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
work="${TEST_TMPDIR:?run under bazel test}"
# shellcheck source=tests/util/nested_bazel.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/util/nested_bazel.sh"
root=$(nested_workspace_root) || fail "the nested build's workspace (above)"
summarise=$TEST_SRCDIR/$TEST_WORKSPACE/tests/paper/execution_log_stages.py

src="$work/src"
mkdir -p "$src"
cp -R "$root/WORKSPACE" "$root/BUILD" "$root/.bazelrc" "$root/lib" "$root/stages" "$root/third_party" \
  "$root/tools" "$root/paper" "$root/tests" "$root/results" "$root/proteins" "$src/"
cleanup() {
  [[ ! -d $work/ob_refresh ]] || (cd "$src" && tools/bazel --output_base="$work/ob_refresh" shutdown >/dev/null 2>&1) || true
  chmod -R u+w "$work/ob" "$work/ob_refresh" 2>/dev/null || true
  rm -rf "$work/ob" "$work/ob_refresh"
}
trap cleanup EXIT

build() {  # build LOG [EXECUTION_LOG]: nested `bazel build //paper:quick`
  local log=$1 extra=()
  [[ $# -lt 2 ]] || extra=("--execution_log_json_file=$2")
  (cd "$src" && env "${OUTER_ENV[@]}" tools/bazel --batch --output_base="$work/ob" build --jobs=2 \
    --symlink_prefix=/ "${OUTER_CACHE_FLAGS[@]}" --define=stage_code_version=off "${extra[@]}" //paper:quick) \
    >"$log" 2>&1 || { tail -40 "$log" >&2; fail "nested build failed (log above)"; }
}

t=$SECONDS
build "$work/first.log"
echo "first build of the quick DAG: $((SECONDS - t)) s"
# The quick results as the first build made them (nothing is rebuilt).
(cd "$src" && env "${OUTER_ENV[@]}" tools/bazel --batch --output_base="$work/ob" run --symlink_prefix=/ \
  "${OUTER_CACHE_FLAGS[@]}" --define=stage_code_version=off //paper:quick -- --dest "$work/rq") >"$work/collect.log" 2>&1 ||
  { tail -20 "$work/collect.log" >&2; fail "collecting the quick results failed"; }

main="$src/stages/sample/main.cc"
grep -q '"Generalised Potts model' "$main" || fail "$main: the description string to edit is not there"
sed -i 's/"Generalised Potts model/"Generalised (edited) Potts model/' "$main"
t=$SECONDS
build "$work/second.log" "$work/exec.json"
echo "second build, the sample binary changed: $((SECONDS - t)) s"

python3 "$summarise" "$work/exec.json" stages/sample/sample stages/figures/figures paper/fill >"$work/classes.txt" ||
  fail "cannot read the execution log $work/exec.json"
cat "$work/classes.txt"
changed=$(grep -c '^changed ' "$work/classes.txt" || true)
presentation=$(grep -c '^presentation ' "$work/classes.txt" || true)
science=$(grep '^science ' "$work/classes.txt" || true)
((changed >= 1)) || fail "no action of the sample binary ran: the change did not reach the build"
[[ -z $science ]] || fail "science stages below the sample stage reran though their inputs kept their bytes:
$science"
grep -q '^presentation //paper:quick_md$' "$work/classes.txt" ||
  fail "the paper, which reads the sample stage's record, did not rerun: is the sample's record still read?"
echo "early cutoff holds: ${changed} sample actions ran, ${presentation} presentation steps reran, no science stage"

# The refresher on the results collected before the change.
data_files() {  # every file of the tree but the records, the presentation steps' outputs and the indexes
  (cd "$1" && find . -type f ! -path './provenance/*' ! -path './figures/*' ! -name 'paper.*' \
    ! -name MANIFEST.json ! -name ro-crate-metadata.json -exec sha256sum {} + | sort)
}
refresh() {  # refresh LOG [FLAG...]: //paper:refresh on $work/rq; sets rc
  local log=$1
  shift
  set +e
  (cd "$src" && env "${OUTER_ENV[@]}" tools/bazel --batch --output_base="$work/ob" run --symlink_prefix=/ \
    "${OUTER_CACHE_FLAGS[@]}" //paper:refresh -- --results "$work/rq" --workspace "$src" \
    --fingerprints //paper:quick_fingerprints --output-base "$work/ob_refresh" \
    --disk-cache "$OUTER_DISK_CACHE" "$@") >"$log" 2>&1
  rc=$?
  set -e
}
tool_cmd() {  # the binary a stage's record ran
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["command"][0])' \
    "$work/rq/provenance/$(sed -E 's#^//(stages/)?##; s#[/:]#.#g' <<<"$1").json"
}
# The plan first: the stages of the sample binary (their action) and the
# presentation steps (an input changed: a record), each with its record's
# time, besides the upstream stages rerun only to supply inputs; a cost
# line; the tree left as it was.
plan_before=$(cd "$work/rq" && find . -type f -exec sha256sum {} + | sort)
refresh "$work/plan.log" --plan
[[ $rc -eq 0 ]] || { tail -30 "$work/plan.log" >&2; fail "refresh --plan exited $rc, expected 0"; }
grep -aqE '^would run //stages/sample:quick: .*\(its record: [0-9.]+ s\)$' "$work/plan.log" ||
  { tail -20 "$work/plan.log" >&2; fail "refresh --plan did not name //stages/sample:quick with its record's time"; }
planned=$(grep -aE '^would run ' "$work/plan.log" | sed -E 's/^would run ([^ ]+): (.*) \(its record: [0-9.]+ s\)$/\1 \2/')
while read -r target why; do
  [[ -n $target ]] || continue
  if [[ $why == "an input changed" ]]; then
    [[ $target == //stages/figures:* || $target == //paper:* ]] ||
      fail "refresh --plan would rerun the science stage $target, though its inputs keep their bytes"
  else
    [[ $(tool_cmd "${target%:}") == */stages/sample/sample ]] || fail "refresh --plan would rerun $target, whose action did not change"
  fi
done <<<"$planned"
grep -aqE '^refresh --plan: [0-9]+ stages would run' "$work/plan.log" || fail "refresh --plan printed no cost line"
[[ $plan_before == "$(cd "$work/rq" && find . -type f -exec sha256sum {} + | sort)" ]] || fail "refresh --plan changed the tree"
grep -aE '^refresh --plan:' "$work/plan.log"

tool_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["tool_sha256"])' "$1"; }
before=$(data_files "$work/rq")
tool_before=$(tool_of "$work/rq/provenance/sample.quick.json")
t=$SECONDS
refresh "$work/refresh.log"
grep -aE '^(same|equal|redrawn|DIFFERS|FAILED|STALE|refresh:|AUDIT)' "$work/refresh.log" || true
[[ $rc -eq 0 ]] || { tail -30 "$work/refresh.log" >&2; fail "refresh exited $rc, expected 0"; }
ran=$(grep -aE '^(same|redrawn) ' "$work/refresh.log" | awk '{ print $2, $3 }')
while read -r target why; do
  [[ -n $target ]] || continue
  if [[ $why == "(its" ]]; then
    [[ $(tool_cmd "$target") == */stages/sample/sample ]] || fail "refresh reran $target, whose action did not change"
  else
    [[ $target == //stages/figures:* || $target == //paper:* ]] ||
      fail "refresh reran the science stage $target, though its inputs kept their bytes"
  fi
done <<<"$ran"
grep -q '^//stages/sample:quick ' <<<"$ran" || fail "refresh did not rerun the changed sample stage"
[[ $before == "$(data_files "$work/rq")" ]] || fail "a data file of the refreshed tree changed its bytes"
[[ $(tool_of "$work/rq/provenance/sample.quick.json") != "$tool_before" ]] ||
  fail "the sample stage's record still names the old binary"
(cd "$src" && env "${OUTER_ENV[@]}" tools/bazel --batch --output_base="$work/ob" run --symlink_prefix=/ \
  "${OUTER_CACHE_FLAGS[@]}" //paper:audit_tree -- "$work/rq") >"$work/audit.log" 2>&1 ||
  { tail -20 "$work/audit.log" >&2; fail "the refreshed tree fails //paper:audit_tree"; }
echo "refresh: $(grep -c . <<<"$ran") stages rerun (sample and presentation only), data kept, audit passes: $((SECONDS - t)) s"

# A change to what the sample writes: refused, nothing written.
cfg="$src/stages/sample/configs/quick.json"
sed -i 's/"burn_in_sweeps": 1000/"burn_in_sweeps": 1001/' "$cfg"
grep -q '"burn_in_sweeps": 1001' "$cfg" || fail "$cfg: the burn-in to edit is not there"
whole=$(cd "$work/rq" && find . -type f -exec sha256sum {} + | sort)
refresh "$work/refresh2.log"
[[ $rc -eq 1 ]] || { tail -30 "$work/refresh2.log" >&2; fail "refresh exited $rc after a change of the sample's output, expected 1"; }
grep -aqE '^DIFFERS +//stages/sample:quick ' "$work/refresh2.log" || { tail -20 "$work/refresh2.log" >&2; fail "refresh did not name //stages/sample:quick as DIFFERS"; }
grep -aq 'nothing written' "$work/refresh2.log" || fail "refresh did not say it wrote nothing"
[[ $whole == "$(cd "$work/rq" && find . -type f -exec sha256sum {} + | sort)" ]] || fail "a refused refresh changed the tree"
echo "refresh refused a change of the sample's output (DIFFERS, exit 1) and left the tree byte for byte"

# The same kind of change with --regenerate, on a stage with little below it
# (the replica solve's grid): its new bytes are kept (NEW), the stages below
# it rerun on them, no other data file changes, and the tree passes its audit.
sed -i 's/"burn_in_sweeps": 1001/"burn_in_sweeps": 1000/' "$cfg"
rcfg="$src/stages/replica/configs/quick.json"
sed -i 's/"points_per_decade": 40/"points_per_decade": 41/' "$rcfg"
grep -q '"points_per_decade": 41' "$rcfg" || fail "$rcfg: the grid to edit is not there"
before=$(data_files "$work/rq")
refresh "$work/refresh3.log" --regenerate
grep -aE '^(same|equal|redrawn|NEW|DIFFERS|FAILED|STALE|refresh:|AUDIT)' "$work/refresh3.log" || true
[[ $rc -eq 0 ]] || { tail -30 "$work/refresh3.log" >&2; fail "refresh --regenerate exited $rc, expected 0"; }
grep -aqE '^NEW +//stages/replica:quick ' "$work/refresh3.log" ||
  fail "refresh --regenerate did not keep the replica stage's new bytes (NEW)"
! grep -aqE '^[A-Za-z]+ +//stages/sample:' "$work/refresh3.log" || fail "refresh --regenerate reran a sample stage"
changed=$( (diff <(echo "$before") <(data_files "$work/rq") || true) | grep -E '^[<>]' | awk '{ print $3 }' | sort -u)
[[ -n $changed ]] || fail "no data file changed after --regenerate of a changed replica grid"
while read -r f; do
  [[ $f == ./replica/* || $f == ./claims/* ]] || fail "$f changed, though no stage that writes it lies below the replica stage"
done <<<"$changed"
recorded=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["config_sha256"])' \
  "$work/rq/provenance/replica.quick.json")
[[ $recorded == "$(sha256sum "$rcfg" | cut -d' ' -f1)" ]] || fail "the replica stage's record does not name its new configuration"
(cd "$src" && env "${OUTER_ENV[@]}" tools/bazel --batch --output_base="$work/ob" run --symlink_prefix=/ \
  "${OUTER_CACHE_FLAGS[@]}" //paper:audit_tree -- "$work/rq") >"$work/audit3.log" 2>&1 ||
  { tail -20 "$work/audit3.log" >&2; fail "the regenerated tree fails //paper:audit_tree"; }
echo "refresh --regenerate kept the replica stage's new bytes; $(wc -l <<<"$changed") data files changed, all below it"
