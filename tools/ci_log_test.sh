#!/usr/bin/env bash
# tools/ci-log.sh on a summary with every form of line Bazel 4.2.3 prints:
# counts by outcome (a sharded test with some shards cached included, which
# an earlier pattern missed) and the slowest tests in order, the summary
# lines a failing test's nested build printed left out.
set -euo pipefail
source "$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
log="$TEST_TMPDIR/test.log"
cat > "$log" <<'LOG'
FAIL: //tests/paper:comment_edit_test (see .../test.log)
==================== Test output for //tests/paper:comment_edit_test:
INFO: Build completed, 1 test FAILED, 81 total actions
//paper:stale                                                            FAILED in 1.5s
//paper:nested_pass                                                      PASSED in 9.9s
Executed 2 out of 2 tests: 1 test passes and 1 fails locally.
INFO: Build completed, 1 test FAILED, 81 total actions
FAIL: //paper:stale failed after comment-only edits
================================================================================
INFO: Elapsed time: 330.9s, Critical Path: 191.6s
INFO: Build completed, 6 tests FAILED, 12 total actions
//a:plain                                                        PASSED in 1.0s
//a:cached                                              (cached) PASSED in 2.0s
//tests/fuzz:merge_fuzz_test                       (4/5 cached) PASSED in 3.7s
  Stats over 5 runs: max = 3.7s, min = 1.1s, avg = 2.0s, dev = 0.9s
//a:sharded_failed                                 (2/5 cached) FAILED in 5.5s
//a:failed                                                       FAILED in 0.5s
//a:timeout                                                     TIMEOUT in 300.0s
//a:flaky                                                         FLAKY, failed in 1 out of 2 in 4.0s
//a:no_status                                                 NO STATUS
//a:broken                                              FAILED TO BUILD
Executed 7 out of 9 tests: 3 tests pass and 6 fail locally.
INFO: Build completed, 6 tests FAILED, 12 total actions
LOG
read -r p f < <(ci_log_counts "$log")
[[ $p == 3 ]] || fail "passed: expected 3, got $p"
[[ $f == 6 ]] || fail "failed: expected 6, got $f"
got=$(ci_log_slowest "$log" | head -3 | awk '{print $2}' | tr '\n' ' ')
[[ $got == "//a:timeout //a:sharded_failed //a:flaky " ]] || fail "slowest: got '$got'"
line=$(ci_log_slowest "$log" | grep merge_fuzz_test)
[[ $line == "3.7 //tests/fuzz:merge_fuzz_test (4/5 cached)" ]] || fail "slowest line: got '$line'"
echo PASS
