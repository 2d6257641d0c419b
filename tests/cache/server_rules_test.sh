#!/usr/bin/env bash
# tools/cache-server's access rules against a real nginx on loopback, without
# Bazel (seconds): each rule below failed before its fix.
#   1. --bind takes an IP literal only: an injected nginx directive, a host
#      name and an address off loopback without --tls are refused, and
#      nothing listens;
#   2. --open with --readers is refused;
#   3. `passwd FILE a.ice` replaces the user a.ice only (alice stays);
#   4. anonymous and reader PUT, DELETE and MOVE on /ac and /cas store or
#      remove nothing; a writer's PUT is stored with mode 0640;
#   5. a name with a trailing newline is not a cache entry (404, nothing
#      stored);
#   6. an upload above --max-upload gets 413 and stores nothing;
#   7. started as root, the workers run as potts-cache.
set -euo pipefail
server="$TEST_SRCDIR/$TEST_WORKSPACE/tools/cache-server"
work="${TEST_TMPDIR:?run under bazel test}"
fail() { echo "FAIL: $*" >&2; exit 1; }
cache=$(mktemp -d /tmp/potts-cache-rules.XXXXXX)
chmod 0711 "$cache"
trap '"$server" stop "$cache" >/dev/null 2>&1 || true; rm -rf "$cache"' EXIT

W_PASS="writer-$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')"
R_PASS="reader-$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')"
printf '%s\n' "$W_PASS" | "$server" passwd "$work/writers" ci >/dev/null
printf '%s\n' "$R_PASS" | "$server" passwd "$work/readers" alice >/dev/null

# 1, 2. Refused before anything starts.
refused() {  # refused WHAT EXPECTED-WORDS ARGS...
  local what=$1 words=$2
  shift 2
  if "$server" start "$work/refused" 28099 "$@" >"$work/refused.out" 2>&1; then
    "$server" stop "$work/refused" >/dev/null 2>&1 || true
    fail "started $what"
  fi
  grep -q -- "$words" "$work/refused.out" || fail "refusing $what: expected '$words', got: $(cat "$work/refused.out")"
  [[ ! -e $work/refused/.server/nginx.pid ]] || fail "$what: a pid file was written"
  echo "refused $what"
}
refused "an injected listen directive" "expected an IP address" --bind '127.0.0.1 default_server; listen 127.0.0.2' --writers "$work/writers"
refused "a host name under 127." "expected an IP address" --bind 127.x.example --writers "$work/writers"
refused "localhost (a name)" "expected an IP address" --bind localhost --writers "$work/writers"
refused "0.0.0.0 without TLS" "without TLS" --bind 0.0.0.0 --writers "$work/writers"
refused ":: without TLS" "without TLS" --bind :: --writers "$work/writers"
refused "--open with --readers" "contradict" --open --readers "$work/readers"
refused "a malformed upload limit" "max-upload" --writers "$work/writers" --max-upload 1x
# A cache directory that would write its own directives into nginx.conf.
if "$server" start "$work/x;error_log $work/injected.log;#" 28099 --open >"$work/inject.out" 2>&1; then
  "$server" stop "$work/x;error_log $work/injected.log;#" >/dev/null 2>&1 || true
  fail "started with a ';' in the cache directory"
fi
grep -q "no space, quote, ';'" "$work/inject.out" || fail "a ';' in the cache directory: $(cat "$work/inject.out")"
[[ ! -e $work/injected.log ]] || fail "the injected error_log was written"
(exec 3<>/dev/tcp/127.0.0.1/28099) 2>/dev/null && fail "nginx listens on 127.0.0.1:28099 after a refused start"
echo "refused a cache directory holding nginx syntax"
# As root, a directory another user owns is refused (its links would be
# followed by root).
if [[ $(id -u) -eq 0 ]] && id nobody >/dev/null 2>&1; then
  mkdir -p "$work/theirs"
  chown nobody "$work/theirs"
  if "$server" start "$work/theirs/cache" 28099 --open >"$work/theirs.out" 2>&1; then
    "$server" stop "$work/theirs/cache" >/dev/null 2>&1 || true
    fail "root started a server in a directory nobody owns"
  fi
  grep -q "not root" "$work/theirs.out" || fail "a directory nobody owns: $(cat "$work/theirs.out")"
  echo "refused, as root, a directory another user owns"
fi
(exec 3<>/dev/tcp/127.0.0.2/28099) 2>/dev/null && fail "something listens on 127.0.0.2:28099"

# 3. passwd matches the whole user name.
printf '%s\n' "$R_PASS" | "$server" passwd "$work/readers" a.ice >/dev/null
[[ $(cut -d: -f1 "$work/readers" | sort | tr '\n' ' ') == "a.ice alice " ]] ||
  fail "passwd a.ice left: $(cut -d: -f1 "$work/readers" | tr '\n' ' ')"
echo "passwd a.ice kept alice"
# passwd in a directory every user may write to is refused; elsewhere its
# temporary file is its own (a pre-made FILE.tmp, or a link there, is left
# alone) and the result is 0600.
mkdir -p "$work/sticky" "$work/own"
chmod 1777 "$work/sticky"
if printf '%s\n' "$R_PASS" | "$server" passwd "$work/sticky/writers" bob >"$work/sticky.log" 2>&1; then
  fail "passwd wrote into the world-writable $work/sticky"
fi
grep -q 'writable by every user' "$work/sticky.log" || fail "passwd in a world-writable directory: $(cat "$work/sticky.log")"
[[ ! -e $work/sticky/writers ]] || fail "passwd left $work/sticky/writers"
echo 'not yours' >"$work/victim"
ln -s "$work/victim" "$work/own/writers.tmp"
printf '%s\n' "$R_PASS" | "$server" passwd "$work/own/writers" bob >/dev/null
[[ $(cat "$work/victim") == 'not yours' ]] || fail "passwd wrote through $work/own/writers.tmp"
[[ $(stat -c %a "$work/own/writers") == 600 ]] || fail "passwd left $work/own/writers mode $(stat -c %a "$work/own/writers")"
echo "passwd refuses a world-writable directory and writes through no file it did not create"

# 4-7 on one server.
port=""
for try in 1 2 3 4 5 6 7 8; do
  p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  if "$server" start "$cache" "$p" --writers "$work/writers" --readers "$work/readers" --max-upload 1k \
      >"$work/start.out" 2>&1; then port=$p; break; fi
done
[[ -n $port ]] || fail "could not start: $(cat "$work/start.out")"
base="http://127.0.0.1:$port"
key=$(printf 'entry' | sha256sum | cut -d' ' -f1)
other=$(printf 'other' | sha256sum | cut -d' ' -f1)
code() { curl -sS -o /dev/null -w '%{http_code}' "$@"; }
for ns in ac cas; do
  for who in anonymous reader; do
    auth=()
    [[ $who == reader ]] && auth=(-u "alice:$R_PASS")
    for m in PUT DELETE MOVE; do
      extra=()
      [[ $m == PUT ]] && extra=(--data-binary "entry")
      [[ $m == MOVE ]] && extra=(-H "Destination: $base/$ns/$other")
      c=$(code "${auth[@]}" -X "$m" "${extra[@]}" "$base/$ns/$key")
      [[ $c == 401 || $c == 403 || $c == 405 ]] || fail "$who $m /$ns: HTTP $c"
    done
  done
  [[ -z $(ls -A "$cache/$ns") ]] || fail "/$ns holds $(ls "$cache/$ns") after refused requests"
  [[ $(code -u "ci:$W_PASS" -X PUT --data-binary "entry" "$base/$ns/$key") == 201 ]] || fail "writer's PUT /$ns"
  mode=$(stat -c %a "$cache/$ns/$key")
  [[ $mode == 640 || $mode == 600 ]] || fail "/$ns entry stored with mode $mode"
  # The writer's entry survives every other role's DELETE.
  code -u "alice:$R_PASS" -X DELETE "$base/$ns/$key" >/dev/null
  [[ -f $cache/$ns/$key ]] || fail "a reader's DELETE removed /$ns/$key"
done
echo "anonymous and reader PUT, DELETE, MOVE refused on /ac and /cas; the writer's entries 0640"

c=$(code -u "ci:$W_PASS" -X PUT --data-binary "entry" "$base/ac/$other%0A")
[[ $c == 404 ]] || fail "PUT of a name with a trailing newline: HTTP $c"
[[ $(ls "$cache/ac" | wc -l) -eq 1 ]] || fail "a name with a trailing newline was stored: $(ls "$cache/ac")"
echo "a trailing newline is not a cache name"

head -c 4096 /dev/zero >"$work/big"
c=$(code -u "ci:$W_PASS" -X PUT --data-binary @"$work/big" "$base/cas/$other")
[[ $c == 413 ]] || fail "a 4 kB upload over a 1k limit: HTTP $c"
[[ ! -e $cache/cas/$other ]] || fail "the oversized upload was stored"
echo "uploads over --max-upload refused"

if [[ $(id -u) -eq 0 ]]; then
  master=$(cat "$cache/.server/nginx.pid")
  users=$(ps -o user= --ppid "$master" | sort -u | tr '\n' ' ')
  [[ $users == "potts-cache " ]] || fail "workers run as: $users"
  echo "workers run as potts-cache"
fi
echo "server_rules_test: ok"
