# Sourced by the cache tests (shared_cache_test.sh, trusted_cache_test.sh):
# a copy of the workspace with a fresh first stage, tools/cache-server on a
# free loopback port, nested Bazel builds of two quick stages and what their
# execution logs and outputs say. The caller sets `work` (its TEST_TMPDIR)
# and sources tests/util/nested_bazel.sh first.

TARGETS=(//stages/sample:quick //stages/train:quick_factored)
STAGE_DIRS=(stages/sample/quick stages/train/quick_factored)

fail() { echo "FAIL: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# The workspace's own sources: the runfile of tools/cache-server is a
# symlink into the source tree.
workspace_root() {
  local s
  s=$(readlink -f "$TEST_SRCDIR/$TEST_WORKSPACE/tools/cache-server")
  root=$(cd "$(dirname "$s")/.." && pwd)
  [[ -f $root/WORKSPACE && -x $root/tools/bazel ]] || fail "$root: not the workspace (no WORKSPACE or tools/bazel)"
}

# copy_workspace DEST: only what the targets need (no results/, no bazel-*
# symlinks, no user.bazelrc), with the configurations' "_comment" of the
# sampling stage and of the training after it tagged by a string no earlier
# build used, so that both actions are new to every cache (the config file's
# digest is in the action key; the data stay the same bytes). The training
# is tagged on its own: a record is no input of it, so a new sampling run
# with the same bytes leaves its key as it was (early cutoff).
copy_workspace() {
  local dest=$1 salt config
  mkdir -p "$dest"
  cp -R "$root/WORKSPACE" "$root/BUILD" "$root/.bazelrc" "$root/lib" "$root/stages" \
    "$root/third_party" "$root/tools" "$root/paper" "$root/proteins" "$dest/"
  salt="cache test $(date +%s%N) $$"
  for config in "$dest/stages/sample/configs/quick.json" "$dest/stages/train/configs/quick_factored.json"; do
    grep -q '^  "_comment": "' "$config" || fail "$config: no top-level \"_comment\" to tag"
    sed -i "0,/^  \"_comment\": \"/s//  \"_comment\": \"[$salt] /" "$config"
    grep -q "\[$salt\]" "$config" || fail "$config: tagging its \"_comment\" failed"
  done
  echo "//stages/sample:quick and //stages/train:quick_factored in $dest with their comments tagged [$salt]"
}

# start_server DIR [OPTION...]: tools/cache-server on a free loopback port
# (one nothing listens on, retried if nginx cannot bind it); sets `port`.
start_server() {
  local dir=$1 try p
  shift
  port=""
  for try in 1 2 3 4 5 6 7 8 9 10; do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then continue; fi
    if "$root/tools/cache-server" start "$dir" "$p" "$@" >"$work/server.out" 2>&1; then port=$p; break; fi
    cat "$work/server.out" >&2
  done
  [[ -n $port ]] || fail "tools/cache-server: could not start on a free port (see above)"
  cat "$work/server.out"
}

# nested_build N SRC OB CONFIG DISK [ENV...]: build TARGETS in SRC with the
# output base OB and --config=CONFIG, disk cache flags DISK ("outer": the
# outer build's, for the compiles; "compiles": the copy snapshot_compiles
# made; "none"), execution log exec<N>.json,
# output in log<N>; sets rc. The nested builds keep the outer client's
# action environment (--noincompatible_strict_action_env and its PATH) so
# that the compiles' keys are the outer build's; a Stage action sets its own
# environment, so its key is the same either way.
nested_build() {
  local n=$1 src=$2 ob=$3 config=$4 disk=$5 t
  shift 5
  local flags=(--disk_cache=)
  [[ $disk == outer ]] && flags=("${OUTER_CACHE_FLAGS[@]}")
  [[ $disk == compiles ]] && flags=("--disk_cache=$work/compiles")
  t=$(now)
  set +e
  (cd "$src" && env HOME="$work/home" "${OUTER_ENV[@]}" "$@" tools/bazel --batch \
    --output_user_root="$work/user_root" --output_base="$ob" \
    build --config="$config" --noincompatible_strict_action_env "${flags[@]}" --jobs=2 \
    --symlink_prefix=/ --execution_log_json_file="$work/exec$n.json" \
    "${TARGETS[@]}") >"$work/log$n" 2>&1
  rc=$?
  set -e
  echo "build $n: exit $rc in $(elapsed "$t") s; $(grep -E '^INFO: [0-9]+ processes' "$work/log$n" || echo 'no process summary')"
}

# snapshot_compiles: $work/compiles, a copy of the outer build's disk cache
# as it is now (hard links: its entries are written once and never changed),
# for builds whose compiles may come from a local cache but whose Stage
# actions must come from the server: the salted stages of copy_workspace are
# in no cache yet, so none is in the copy. Empty without an outer cache.
snapshot_compiles() {
  local outer=$OUTER_DISK_CACHE
  rm -rf "$work/compiles"
  if [[ -n $outer && -d $outer ]]; then
    cp -al "$outer" "$work/compiles" 2>/dev/null || { rm -rf "$work/compiles"; cp -a "$outer" "$work/compiles"; }
  else
    mkdir -p "$work/compiles"
  fi
}

out_dir() {  # out_dir OB DIR: where a build in OB wrote a stage's outputs
  local d
  for d in "$1"/execroot/*/bazel-out/*/bin/"$2"; do
    [[ -d $d ]] && { echo "$d"; return; }
  done
  fail "no output directory $2 under $1"
}

drop_stage_outputs() {  # drop_stage_outputs OB: so the next build must fetch or rerun them
  local d o
  for d in "${STAGE_DIRS[@]}"; do
    o=$(out_dir "$1" "$d")
    chmod -R u+w "$o" && rm -rf "$o"
  done
}

hashes() {  # hashes OB [EXCLUDE]: "dir/file sha256" of every stage output in OB
  local d f o
  for d in "${STAGE_DIRS[@]}"; do
    o=$(out_dir "$1" "$d")
    for f in "$o"/*; do
      [[ -n ${2:-} && $(basename "$f") == "$2" ]] && continue
      echo "$d/$(basename "$f") $(sha256sum "$f" | cut -d' ' -f1)"
    done
  done
}

stage_actions() {  # stage_actions N: "<remoteCacheHit> <progress message>" per Stage action
  awk '
    /"progressMessage":/ { msg = $0; sub(/.*"progressMessage": "/, "", msg); sub(/",?$/, "", msg) }
    /"mnemonic":/ { stage = ($0 ~ /"mnemonic": "Stage"/) }
    /"remoteCacheHit":/ { if (stage) { hit = ($0 ~ /true/) ? "hit" : "miss"; print hit, msg }; stage = 0 }
  ' "$work/exec$1.json"
}

cleanup_nested() {  # nested output bases hold read-only trees; keep TEST_TMPDIR small
  chmod -R u+w "$work"/ob* "$work/user_root" 2>/dev/null || true
  rm -rf "$work"/ob* "$work/user_root" "$work/compiles"
}
