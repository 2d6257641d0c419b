#!/usr/bin/env bash
# Staleness is keyed on what determines the bytes: in a copy of this
# workspace (with its committed results/), comment lines inserted into the
# sources of a paper-scale stage (its main, its stage body, a science
# library, at the top and in the middle of each file) must leave
# `//paper:stale` green, because the stage binary's bytes do not change; as
# the negative control, an edit of code (a string the binary prints) must
# make `//paper:stale` fail, naming that stage's binary.
#
# Nested Bazel builds with their own output base; the compile and link
# actions are served by the outer build's disk cache (nested_bazel.sh), so
# only the edited files compile.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
work="${TEST_TMPDIR:?run under bazel test}"
# shellcheck source=tests/util/nested_bazel.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/util/nested_bazel.sh"
root=$(nested_workspace_root) || fail "the nested build's workspace (above)"

src="$work/src"
mkdir -p "$src"
cp -R "$root/WORKSPACE" "$root/BUILD" "$root/.bazelrc" "$root/lib" "$root/stages" "$root/third_party" \
  "$root/tools" "$root/paper" "$root/tests" "$root/results" "$root/proteins" "$src/"
cleanup() {
  chmod -R u+w "$work/ob" 2>/dev/null || true
  rm -rf "$work/ob"
}
trap cleanup EXIT

stale() {  # stale LOG: nested `bazel test //paper:stale`; sets rc
  set +e
  (cd "$src" && env "${OUTER_ENV[@]}" tools/bazel --batch --output_base="$work/ob" test --jobs=2 \
    --symlink_prefix=/ "${OUTER_CACHE_FLAGS[@]}" --test_output=all //paper:stale) >"$1" 2>&1
  rc=$?
  set -e
}

# insert_comments FILE: a comment line after the first line and one in the
# middle, after a line that ends a statement (not a macro continuation).
insert_comments() {
  local f=$1 n mid
  n=$(wc -l <"$f")
  mid=$(awk -v n="$n" 'NR >= n / 2 && /[;{}]$/ { print NR; exit }' "$f")
  [[ -n $mid ]] || fail "$f: no statement end in its second half"
  awk -v mid="$mid" '{ print } NR == 1 || NR == mid { print "// An inserted comment: the binary must not change." }' \
    "$f" >"$f.new"
  mv "$f.new" "$f"
}

# The sample stage's sources in this repository: its main, its stage body
# and the science it calls.
files=()
for d in stages/sample lib/potts; do
  for f in "$src/$d"/*.cc; do
    [[ $f == *_test.cc ]] || files+=("$f")
  done
done
((${#files[@]} >= 3)) || fail "expected the sample stage's sources under stages/sample and lib/potts"
for f in "${files[@]}"; do insert_comments "$f"; done
echo "comments inserted into ${#files[@]} files: ${files[*]#$src/}"

stale "$work/comment.log"
((rc == 0)) || { cat "$work/comment.log" >&2; fail "//paper:stale failed after comment-only edits"; }
grep -q "nothing is stale against the tree" "$work/comment.log" ||
  { cat "$work/comment.log" >&2; fail "//paper:stale passed without saying nothing is stale"; }
echo "comment-only edits: //paper:stale passes; $(grep -E '^INFO: [0-9]+ processes' "$work/comment.log" || echo 'no process summary')"

# Negative control: a code edit (the sample stage's --help text).
main="$src/stages/sample/main.cc"
grep -q '"Generalised Potts model' "$main" || fail "$main: the description string to edit is not there"
sed -i 's/"Generalised Potts model/"Generalised (edited) Potts model/' "$main"
stale "$work/code.log"
((rc != 0)) || { cat "$work/code.log" >&2; fail "//paper:stale passed after a code edit of the sample stage"; }
grep -q "binary of //stages/sample:sample changed" "$work/code.log" ||
  { cat "$work/code.log" >&2; fail "//paper:stale failed, but not naming the sample stage's binary"; }
echo "code edit: //paper:stale fails, naming //stages/sample:sample"
