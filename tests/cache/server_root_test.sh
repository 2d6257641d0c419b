#!/usr/bin/env bash
# tools/cache-server and tools/cache-proxy touch nothing another user
# controls, and stay available, against a real nginx on loopback. Each case
# below failed before its fix:
#   1. stop kills only its own nginx master: a pid file naming another
#      process (written by whoever could write it) is not obeyed;
#   2. as root, a server directory (.server) another user owns is refused,
#      and nothing is written through the links it holds;
#   3. as root, the workers' user cannot make root change the owner of a
#      directory: the temporary directory root re-creates is root's;
#   4. as root, the proxy refuses a directory another user owns, and a
#      pre-made auth.conf there receives no credential;
#   5. logs are 0640 in a directory closed to others;
#   6. a Basic user name holding a newline writes no line of its own into
#      error.log (400, before auth_basic logs it);
#   7. a readers file without a final newline still admits its last reader
#      and the writers;
#   8. 600 idle connections do not lock a reader out (they took every slot
#      of nginx's default 256 connections per worker);
#   9. as root, the proxy's workers run as potts-cache, not root.
# Cases 2-4 and 9 need root and the user nobody.
set -euo pipefail
tools="$TEST_SRCDIR/$TEST_WORKSPACE/tools"
server="$tools/cache-server" proxy="$tools/cache-proxy"
work="${TEST_TMPDIR:?run under bazel test}"
fail() { echo "FAIL: $*" >&2; exit 1; }
as_root=0
[[ $(id -u) -eq 0 ]] && id nobody >/dev/null 2>&1 && as_root=1
top=$(mktemp -d /tmp/potts-cache-root.XXXXXX)
chmod 0711 "$top"
cache="$top/cache" pdir="$top/proxy"
sleeper=""
cleanup() {
  "$server" stop "$cache" >/dev/null 2>&1 || true
  "$proxy" stop "$pdir" >/dev/null 2>&1 || true
  [[ -z $sleeper ]] || kill "$sleeper" 2>/dev/null || true
  rm -rf "$top"
}
trap cleanup EXIT
W_PASS="writer-$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')"
R_PASS="reader-$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')"
printf '%s\n' "$W_PASS" | "$server" passwd "$work/writers" ci >/dev/null
printf '%s\n' "$R_PASS" | "$server" passwd "$work/readers" alice >/dev/null
start() {  # start DIR ARGS...: start a server on a free port; sets $port
  local d=$1 try p
  shift
  for try in 1 2 3 4 5 6 7 8; do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if "$server" start "$d" "$p" "$@" >"$work/start.out" 2>&1; then port=$p; return 0; fi
  done
  fail "could not start: $(cat "$work/start.out")"
}
code() { curl -sS -o /dev/null -w '%{http_code}' "$@"; }

# 1. A pid file naming another process.
mkdir -p "$cache/.server"
chmod 0755 "$cache" "$cache/.server"
sleep 300 &
sleeper=$!
echo "$sleeper" >"$cache/.server/nginx.pid"
"$server" stop "$cache" >"$work/stop.out" 2>&1 || true
kill -0 "$sleeper" 2>/dev/null || fail "stop killed pid $sleeper, which is no nginx of its own: $(cat "$work/stop.out")"
grep -q "no server runs" "$work/stop.out" || fail "stop with a foreign pid file: $(cat "$work/stop.out")"
echo "stop left alone the process a pid file named"
kill "$sleeper"; sleeper=""

# 2. As root: a .server that another user owns, holding a link.
if [[ $as_root -eq 1 ]]; then
  echo "root's secret" >"$work/victim"
  chmod 0600 "$work/victim"
  rm -rf "$cache/.server"
  mkdir "$cache/.server"
  ln -s "$work/victim" "$cache/.server/nginx.pid"
  chown -h nobody "$cache/.server" "$cache/.server/nginx.pid"
  if "$server" start "$cache" 28098 --open >"$work/theirs.out" 2>&1; then
    fail "root started with a .server that nobody owns"
  fi
  grep -q "not by you" "$work/theirs.out" || fail "a .server nobody owns: $(cat "$work/theirs.out")"
  [[ $(cat "$work/victim") == "root's secret" ]] || fail "root wrote through nobody's link: $(cat "$work/victim")"
  echo "refused, as root, a .server another user owns; nothing written through its link"
  rm -rf "$cache/.server"
fi

# 3, 5-8 on one server.
printf '%s' "$(cat "$work/readers")" >"$work/readers.nonl"   # no final newline
chmod 0600 "$work/readers.nonl"
start "$cache" --writers "$work/writers" --readers "$work/readers.nonl"
base="http://127.0.0.1:$port"
key=$(printf 'entry' | sha256sum | cut -d' ' -f1)
srv="$cache/.server"
if [[ $as_root -eq 1 ]]; then
  mkdir -m 0700 "$top/rootdir"
  # What the workers' user may try: replace a temporary directory by a
  # link to a root directory, for the next start to chown.
  runuser -u potts-cache -- bash -c "rm -rf '$srv/tmp/body' && ln -s '$top/rootdir' '$srv/tmp/body'" 2>/dev/null || true
  "$server" stop "$cache" >/dev/null
  start "$cache" --writers "$work/writers" --readers "$work/readers.nonl"
  base="http://127.0.0.1:$port"
  [[ $(stat -c %U "$top/rootdir") == root ]] || fail "a root directory now belongs to $(stat -c %U "$top/rootdir")"
  [[ $(stat -c %U "$srv/tmp") == root ]] || fail "$srv/tmp belongs to $(stat -c %U "$srv/tmp")"
  echo "the workers' user cannot make root chown a directory"
fi
for f in access.log error.log; do
  [[ $(stat -c %a "$srv/$f") == 640 ]] || fail "$f has mode $(stat -c %a "$srv/$f")"
done
[[ -z $(find "$srv" -maxdepth 0 -perm /0007) ]] || fail "$srv is open to others: mode $(stat -c %a "$srv")"
echo "logs 0640 in a directory closed to others"

c=$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Basic $(printf 'ev\nil:x' | base64 -w0)" \
  -X PUT --data-binary entry "$base/ac/$key")
[[ $c == 400 || $c == 401 ]] || fail "a user name with a newline: HTTP $c"
if grep -vE '^[0-9]{4}/[0-9]{2}/[0-9]{2} ' "$srv/error.log" | grep -q .; then
  fail "error.log holds a line of the client's: $(grep -vE '^[0-9]{4}/' "$srv/error.log" | head -1)"
fi
echo "a user name with a newline forged no line of error.log (HTTP $c)"

[[ $(code -u "alice:$R_PASS" "$base/ac/$key") == 404 ]] || fail "the last reader of a file without a final newline was refused"
[[ $(code -u "ci:$W_PASS" "$base/ac/$key") == 404 ]] || fail "a writer was refused after a readers file without a final newline"
echo "a readers file without a final newline admits its last reader and the writers"

python3 - "$port" >"$work/idle.out" 2>&1 <<'PY' &
import socket, sys, time
held = []
for _ in range(600):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.sendall(b"GET")
    held.append(s)
print("holding", len(held), flush=True)
time.sleep(8)
PY
idle=$!
for i in $(seq 100); do grep -q holding "$work/idle.out" 2>/dev/null && break; sleep 0.1; done
grep -q "holding 600" "$work/idle.out" || fail "could not open 600 connections: $(cat "$work/idle.out")"
c=$(code --max-time 5 -u "alice:$R_PASS" "$base/ac/$key" || true)
kill "$idle" 2>/dev/null || true
wait "$idle" 2>/dev/null || true
[[ $c == 404 ]] || fail "a reader's GET beside 600 idle connections: HTTP $c"
echo "600 idle connections leave room for a reader"
"$server" stop "$cache" >/dev/null

# 4, 9. The proxy as root.
if [[ $as_root -eq 1 ]]; then
  printf 'ci:%s\n' "$W_PASS" >"$work/cred"
  chmod 0600 "$work/cred"
  mkdir -p "$top/theirs/proxy"
  : >"$top/theirs/proxy/auth.conf"
  chmod 0666 "$top/theirs/proxy/auth.conf"
  chown -R nobody "$top/theirs"
  if "$proxy" start "$top/theirs/proxy" 28097 --upstream https://localhost:8443 --credential "$work/cred" \
      >"$work/pt.out" 2>&1; then
    "$proxy" stop "$top/theirs/proxy" >/dev/null 2>&1 || true
    fail "root started a proxy in a directory nobody owns"
  fi
  [[ ! -s $top/theirs/proxy/auth.conf ]] || fail "the credential went into nobody's auth.conf"
  echo "refused, as root, a proxy directory another user owns: $(head -c 90 "$work/pt.out")"
  # A random port can be taken by another test meanwhile: retried, as start().
  for try in 1 2 3 4 5 6 7 8; do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if "$proxy" start "$pdir" "$p" --upstream https://localhost:8443 --credential "$work/cred" >"$work/proxy.out" 2>&1; then
      break
    fi
    ((try < 8)) || fail "the proxy could not start: $(cat "$work/proxy.out")"
  done
  master=$(cat "$pdir/nginx.pid")
  users=$(ps -o user= --ppid "$master" | sort -u | tr '\n' ' ')
  [[ $users == "potts-cache " ]] || fail "the proxy's workers run as: $users"
  [[ $(stat -c %a "$pdir/auth.conf") == 600 ]] || fail "auth.conf has mode $(stat -c %a "$pdir/auth.conf")"
  echo "the proxy's workers run as potts-cache"
  "$proxy" stop "$pdir" >/dev/null
fi
echo "server_root_test: ok"
