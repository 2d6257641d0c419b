# Reading Bazel's test summary (sourced by .ci/run; tested by
# //tools:ci_log_test). Bazel prints one line per test target:
#   //pkg:name   PASSED in 1.2s
#   //pkg:name   (cached) PASSED in 1.2s
#   //pkg:name   (4/5 cached) FAILED in 3.4s    (a sharded test, some shards cached)
# with FAILED, TIMEOUT, FLAKY, NO STATUS, INCOMPLETE or FAILED TO BUILD in
# place of PASSED; a sharded or retried test adds "  Stats over 3 runs: ...".

# Bazel prints its end-of-build line ("INFO: Build completed ...", or
# "Build did NOT complete") twice, before and after the summary. A failing
# test that runs Bazel inside Bazel prints its nested build's summary, with
# its own such lines, in its output, earlier: those are not this run's.

ci_log_status='^//[^ ]+ +(\(([0-9]+/[0-9]+ )?cached\) )?'

# ci_log_summary LOG: the lines between the last two end-of-build lines
# (after the only one if there is one; all of LOG if there is none).
ci_log_summary() {
  awk '/^(INFO|ERROR|FAILED): Build (completed|did NOT complete)/ { m = k; k = NR; next } { line[NR] = $0 }
       END { lo = (m ? m : k); hi = (m ? k : NR + 1); for (i = lo + 1; i < hi; i++) if (i in line) print line[i] }' "$1"
}

# ci_log_counts LOG: "<passed> <failed>", the test targets of LOG by outcome.
ci_log_counts() {
  local p f
  p=$(ci_log_summary "$1" | grep -cE "${ci_log_status}PASSED" || true)
  f=$(ci_log_summary "$1" | grep -cE "${ci_log_status}(FAILED|TIMEOUT|FLAKY|NO STATUS|INCOMPLETE)" || true)
  echo "$p $f"
}

# ci_log_slowest LOG: "<seconds> <target> [(cached)]" per test, slowest first.
ci_log_slowest() {
  ci_log_summary "$1" | sed -nE 's#^(//[^ ]+) +(\(([0-9]+/[0-9]+ )?cached\) )?[A-Z][^/]* in ([0-9.]+)s.*#\4 \1 \2#p' | sed 's/ $//' |
    sort -rn -k1,1
}
