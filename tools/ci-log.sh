# Reading Bazel's test summary (sourced by .ci/run; tested by
# //tools:ci_log_test). Bazel prints one line per test target:
#   //pkg:name   PASSED in 1.2s
#   //pkg:name   (cached) PASSED in 1.2s
#   //pkg:name   (4/5 cached) FAILED in 3.4s    (a sharded test, some shards cached)
# with FAILED, TIMEOUT, FLAKY, NO STATUS, INCOMPLETE or FAILED TO BUILD in
# place of PASSED; a sharded or retried test adds "  Stats over 3 runs: ...".

ci_log_status='^//[^ ]+ +(\(([0-9]+/[0-9]+ )?cached\) )?'

# ci_log_counts LOG: "<passed> <failed>", the test targets of LOG by outcome.
ci_log_counts() {
  local p f
  p=$(grep -cE "${ci_log_status}PASSED" "$1" || true)
  f=$(grep -cE "${ci_log_status}(FAILED|TIMEOUT|FLAKY|NO STATUS|INCOMPLETE)" "$1" || true)
  echo "$p $f"
}

# ci_log_slowest LOG: "<seconds> <target> [(cached)]" per test, slowest first.
ci_log_slowest() {
  sed -nE 's#^(//[^ ]+) +(\(([0-9]+/[0-9]+ )?cached\) )?[A-Z][^/]* in ([0-9.]+)s.*#\4 \1 \2#p' "$1" | sed 's/ $//' |
    sort -rn -k1,1
}
