#!/usr/bin/env bash
# Every benchmark still runs, at its smallest size, so that none rots
# unseen: each Google Benchmark binary with a minimum time of 1 ms per case
# (every case runs at least once), dense_product_levels for one round, and
# attention_torch_compare for one step and one round on the stage's side
# (--no-peer: PyTorch is neither needed nor installed). Each must exit 0 and
# print what it measures. contacts_compare (ccmpred_compare's script at one
# thread and every core) runs the PLM on Ras's 799 sequences for one round,
# up to where CCMpred would run (--no-peer). The shell benchmarks that need a
# base build (attention_step_compare) and the paper-scale fits
# (contact_tools, attention_products, plm_stopping) are not run here.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
r="$TEST_SRCDIR/$TEST_WORKSPACE/bench"
for b in estimators/fit_bench estimators/couplings_bench estimators/attention_potts_bench potts/gibbs_bench \
    train/train_bench; do
  t=$SECONDS
  "$r/$b" --benchmark_min_time=0.001 >"$TEST_TMPDIR/out" 2>&1 || { tail -20 "$TEST_TMPDIR/out" >&2; fail "$b failed"; }
  n=$(grep -c '^BM_' "$TEST_TMPDIR/out" || true)
  [[ $n -gt 0 ]] || fail "$b reported no benchmark"
  echo "$b: $n cases in $((SECONDS - t)) s"
done
"$r/estimators/dense_product_levels" --rounds 1 >"$TEST_TMPDIR/out" 2>&1 || fail "dense_product_levels failed"
grep -q '^| ' "$TEST_TMPDIR/out" || fail "dense_product_levels printed no table"
echo "dense_product_levels: $(grep -c '^| ' "$TEST_TMPDIR/out") rows"
RUNFILES_DIR="$TEST_SRCDIR" "$r/proteins/attention_torch_compare" --steps 1 --rounds 1 --no-peer >"$TEST_TMPDIR/out" 2>&1 ||
  { tail -20 "$TEST_TMPDIR/out" >&2; fail "attention_torch_compare failed"; }
grep -q "the same bytes across levels" "$TEST_TMPDIR/out" || fail "attention_torch_compare: $(tail -3 "$TEST_TMPDIR/out")"
echo "attention_torch_compare: $(tail -1 "$TEST_TMPDIR/out")"
RUNFILES_DIR="$TEST_SRCDIR" "$r/proteins/contacts_compare" --threads 1,all --no-peer --rounds 1 --families ras799 \
  >"$TEST_TMPDIR/out" 2>&1 || { tail -20 "$TEST_TMPDIR/out" >&2; fail "contacts_compare failed"; }
grep -q '^ras799: {"top_L"' "$TEST_TMPDIR/out" || fail "contacts_compare: $(tail -3 "$TEST_TMPDIR/out")"
echo "contacts_compare: $(grep -c '^ras799@' "$TEST_TMPDIR/out") PLM runs, $(grep '^ras799: ' "$TEST_TMPDIR/out")"
echo "smoke_test: ok"
