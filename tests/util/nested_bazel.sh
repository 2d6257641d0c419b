# Sourced by the tests that run Bazel inside Bazel (tests/paper,
# tests/cache, tests/remote). Sets OUTER_CACHE_FLAGS: flags that point the
# nested build at the outer build's disk cache and repository cache, so that
# a nested build compiles only what its test changed; and OUTER_ENV: the
# environment the nested client runs with (the outer client's PATH, on which
# the compile actions' cache keys depend).
#
# tools/bazel exports POTTS_CLIENT_HOME (the directory Bazel expands "~" in
# .bazelrc to: the account's home, which $HOME need not be), POTTS_CLIENT_CACHE
# and POTTS_CLIENT_PATH, and .bazelrc passes them to tests (--test_env).
# Without them (Bazel run without tools/bazel) the nested build has its own
# caches: slower, not different.
# OUTER_DISK_CACHE is that disk cache's directory ("" without one).
OUTER_CACHE_FLAGS=()
OUTER_ENV=()
OUTER_DISK_CACHE=""
if [[ -n ${POTTS_CLIENT_HOME:-} && -d $POTTS_CLIENT_HOME ]]; then
  OUTER_DISK_CACHE="$POTTS_CLIENT_HOME/.cache/potts_attention_bazel_disk_cache"
  OUTER_CACHE_FLAGS+=("--disk_cache=$OUTER_DISK_CACHE")
  OUTER_CACHE_FLAGS+=("--repository_cache=$POTTS_CLIENT_HOME/.cache/bazel/_bazel_$(id -un)/cache/repos/v1")
  echo "nested builds share the caches under $POTTS_CLIENT_HOME/.cache"
else
  echo "POTTS_CLIENT_HOME not set (Bazel not run through tools/bazel): nested builds use their own caches"
fi
if [[ -n ${POTTS_CLIENT_PATH:-} ]]; then
  OUTER_ENV+=("PATH=$POTTS_CLIENT_PATH")
fi

# nested_workspace_root: the source tree whose copy a nested build runs in
# (the directory of the WORKSPACE the test's runfiles link to; the test needs
# //:WORKSPACE among its data). Status 1 if it holds no tools/bazel.
nested_workspace_root() {
  local r
  r=$(dirname "$(readlink -f "$TEST_SRCDIR/$TEST_WORKSPACE/WORKSPACE")")
  [[ -x $r/tools/bazel ]] || { echo "$r: not the workspace (no tools/bazel)" >&2; return 1; }
  echo "$r"
}
