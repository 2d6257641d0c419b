#!/usr/bin/env bash
# tools/bazel's pre-build check trusts a loopback cache only when the socket
# listening on its port belongs to the member (or root). Before, when a
# member's tools/cache-proxy was down, any local user could bind its port,
# answer the check's lookup with 404, and then serve action results of its
# choosing. Cases, on a free loopback port:
#   1. an impostor (user nobody) on 127.0.0.1:PORT: refused, naming nobody;
#   2. an impostor on the wildcard 0.0.0.0:PORT: refused;
#   3. the member's own listener: the check passes and Bazel runs.
# Cases 1 and 2 need root (runuser) and the user nobody.
# A stand-in for Bazel (BAZEL_REAL) records whether it ran.
set -euo pipefail
work="${TEST_TMPDIR:?run under bazel test}"
fail() { echo "FAIL: $*" >&2; exit 1; }
ws="$work/ws"
mkdir -p "$ws/tools" "$work/home" "$work/empty"
chmod 0755 "$work/empty"
for f in bazel debian.sh bazelrc_words.py; do cp "$TEST_SRCDIR/$TEST_WORKSPACE/tools/$f" "$ws/tools/"; done
cp "$TEST_SRCDIR/$TEST_WORKSPACE/.bazelrc" "$ws/.bazelrc"
printf '#!/usr/bin/env bash\necho ran >"%s/ran"\n' "$work" >"$work/fake_bazel"
chmod +x "$work/fake_bazel"
export BAZEL_REAL="$work/fake_bazel" HOME="$work/home"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "build:shared-cache --remote_cache=http://127.0.0.1:$port" >"$ws/user.bazelrc"
server_pid=""
stop_server() { [[ -z $server_pid ]] || { kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }; server_pid=""; }
trap stop_server EXIT
serve() {  # serve BIND [USER]: a plain HTTP server answering 404 for /ac/...
  local bind=$1 user=${2:-} i
  if [[ -n $user ]]; then
    runuser -u "$user" -- python3 -m http.server "$port" --bind "$bind" --directory "$work/empty" >/dev/null 2>&1 &
  else
    python3 -m http.server "$port" --bind "$bind" --directory "$work/empty" >/dev/null 2>&1 &
  fi
  server_pid=$!
  for i in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0
    sleep 0.1
  done
  fail "the stand-in server on $bind:$port did not start"
}
run_check() { rm -f "$work/ran"; "$ws/tools/bazel" build --config=shared-cache //x >"$work/out" 2>&1; }

if [[ $(id -u) -eq 0 ]] && id nobody >/dev/null 2>&1; then
  for bind in 127.0.0.1 0.0.0.0; do
    serve "$bind" nobody
    if run_check; then fail "an impostor (nobody) on $bind:$port was accepted as the cache: $(cat "$work/out")"; fi
    [[ ! -e $work/ran ]] || fail "Bazel ran with an impostor on $bind:$port"
    grep -q "served by nobody" "$work/out" || fail "the refusal does not name the impostor: $(cat "$work/out")"
    echo "refused an impostor on $bind:$port: $(head -c 100 "$work/out")"
    stop_server
  done
else
  echo "skipped the impostor cases: they need root and the user nobody"
fi
serve 127.0.0.1
run_check || fail "the member's own listener was refused: $(cat "$work/out")"
[[ -e $work/ran ]] || fail "Bazel did not run behind the member's own listener"
echo "proxy_identity_test: ok"
