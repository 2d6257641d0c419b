#!/usr/bin/env bash
# results/ro-crate-metadata.json read by a real RO-Crate reader: the npm
# package ro-crate (pinned), installed on first use into the client's cache
# (or the test's own directory), then check_crate.js.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
version=3.7.2
command -v npm >/dev/null || fail "npm not found (Node.js with npm is needed; tools/bazel installs it)"
cache=${POTTS_CLIENT_HOME:-${TEST_TMPDIR:?run under bazel test}}/.cache/potts_attention_npm/ro-crate-$version
if [[ ! -f $cache/node_modules/ro-crate/package.json ]]; then
  mkdir -p "$cache"
  # The client's npm settings (its registry, CA file), which a test's HOME
  # hides; and the system's CA bundle, as every other client here trusts it.
  npm_args=()
  [[ -z ${POTTS_CLIENT_HOME:-} || ! -f $POTTS_CLIENT_HOME/.npmrc ]] || npm_args+=(--userconfig "$POTTS_CLIENT_HOME/.npmrc")
  [[ -n ${NODE_EXTRA_CA_CERTS:-} || ! -f /etc/ssl/certs/ca-certificates.crt ]] ||
    export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
  npm install "${npm_args[@]}" --prefix "$cache" --no-audit --no-fund --loglevel=error "ro-crate@$version" >&2 ||
    fail "npm install ro-crate@$version failed (the npm registry must be reachable)"
fi
results=$TEST_SRCDIR/$TEST_WORKSPACE/results
[[ -f $results/ro-crate-metadata.json ]] || fail "$results/ro-crate-metadata.json: missing"
node "$TEST_SRCDIR/$TEST_WORKSPACE/tests/paper/check_crate.js" "$cache/node_modules" "$results"
