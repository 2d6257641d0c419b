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
  chmod -R u+w "$work/ob" 2>/dev/null || true
  rm -rf "$work/ob"
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
