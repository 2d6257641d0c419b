#!/usr/bin/env bash
# //paper:verify refuses a --scratch that is the results tree (or inside the
# workspace, or not empty), and an --output-base it did not make, before it
# touches anything, and leaves the tree whole: the rebuilder once removed
# every file of results/ this way, through either option.
set -euo pipefail
verify="$1"
work="${TEST_TMPDIR:?run under bazel test}"
fail() { echo "FAIL: $*" >&2; exit 1; }
ws="$work/ws"
mkdir -p "$ws/results/provenance" "$work/full"
echo '{}' >"$ws/results/MANIFEST.json"
echo 'a record' >"$ws/results/provenance/x.json"
echo 'mine' >"$work/full/keep.txt"
before=$(cd "$ws" && find . -type f | sort | xargs sha256sum)
for scratch in "$ws/results" "$ws/results/provenance" "$ws" "$work/full"; do
  if out=$("$verify" --workspace "$ws" --stage //x:y --scratch "$scratch" 2>&1); then
    fail "verify accepted --scratch $scratch"
  fi
  [[ $out == *"--scratch:"* ]] || fail "--scratch $scratch: no reason given: $out"
  echo "refused --scratch $scratch: ${out##*error: }"
done
# --output-base: results/, the workspace, or a directory verify did not make
# (a home directory) is refused and left whole; the rebuilder once removed
# any directory without its stamp.
mkdir -p "$work/home/.ssh"
echo 'key' >"$work/home/.ssh/id"
for base in "$ws/results" "$ws" "$work/home" / "$work/home/.."; do
  if out=$(HOME=$work/home "$verify" --workspace "$ws" --stage //x:y --output-base "$base" 2>&1); then
    fail "verify accepted --output-base $base"
  fi
  [[ $out == *"--output-base:"* ]] || fail "--output-base $base: no reason given: $out"
  echo "refused --output-base $base: ${out##*error: }"
done
[[ -f $work/home/.ssh/id ]] || fail "the home directory given as --output-base was removed"
[[ $(cd "$ws" && find . -type f | sort | xargs sha256sum) == "$before" ]] || fail "the tree changed"
[[ -f $work/full/keep.txt ]] || fail "the user's file in $work/full was removed"
echo "verify_scratch_test: ok"
