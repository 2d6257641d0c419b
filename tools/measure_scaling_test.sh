#!/usr/bin/env bash
# tools/measure-scaling without a nested build: its arguments, and how it
# reads //paper:schedule's output (the columns it tabulates), on a DAG of
# three hand-made records with known W, T and schedules.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
tool="$TEST_SRCDIR/$TEST_WORKSPACE/tools/measure-scaling"
schedule="$TEST_SRCDIR/$TEST_WORKSPACE/paper/schedule"
tmp="${TEST_TMPDIR:?run under bazel test}"

"$tool" --help | grep -q '^Usage: tools/measure-scaling' || fail "--help prints no usage"
expect_error() {  # expect_error PATTERN ARGS...: exits non-zero, stderr matches PATTERN
  local pattern=$1; shift
  if "$tool" "$@" >"$tmp/out" 2>"$tmp/err"; then fail "'$*' succeeded"; fi
  grep -q -- "$pattern" "$tmp/err" || fail "'$*': stderr lacks '$pattern': $(cat "$tmp/err")"
}
expect_error "expected positive numbers, got '0'" --jobs "1 0"
expect_error "expected local and/or remote, got 'cloud'" --modes cloud
expect_error "unknown argument '--bogus'" --bogus
expect_error "needs a file" --parse-schedule /nonexistent 2

# a (10 s) feeds b (20 s) and c (30 s): W = 60 s, T = 40 s; on two workers
# b and c run side by side after a (40 s).
mkdir -p "$tmp/r/provenance"
# (Records link by hash: b and c read a's output d.csv.)
out='{"d.csv": {"path": "bazel-out/k8-opt/bin/x/a/d.csv", "sha256": "'"$(printf '%064d' 1)"'"}}'
echo '{"target": "//x:a", "wall_seconds": 10, "outputs": '"$out"'}' >"$tmp/r/provenance/a.json"
for s in b:20 c:30; do
  echo '{"target": "//x:'"${s%:*}"'", "wall_seconds": '"${s#*:}"', "inputs": {"in/d.csv": '"${out#*: }"'}' \
    >"$tmp/r/provenance/${s%:*}.json"
done
"$schedule" "$tmp/r" >"$tmp/schedule.txt"
check() {  # check N EXPECTED
  local got
  got=$("$tool" --parse-schedule "$tmp/schedule.txt" "$1")
  [[ $got == "$2" ]] || fail "N = $1: parsed '$got', expected '$2' from: $(cat "$tmp/schedule.txt")"
}
check 1 "3,60,40,60,60,100"
check 2 "3,60,40,40,40,70"
check 3 "3,60,40,NA,NA,NA"  # not a row of the table
echo PASS
