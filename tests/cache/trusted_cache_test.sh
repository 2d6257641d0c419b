#!/usr/bin/env bash
# A cache a team can trust, end to end against a real server on loopback:
# tools/cache-server with a writers' file (CI), a readers' file (members)
# and TLS from a CA this test makes with openssl.
#   0. set-ups the server refuses: credentials off loopback without TLS,
#      anonymous writes off loopback, no writers' rule at all;
#   1. curl: anonymous and reader PUTs are refused and store nothing, a
#      writer's PUT is stored, an anonymous GET is refused, a reader's GET
#      is served;
#   2. the writer (CI) builds two quick stages and uploads them, through
#      its credential proxy (tools/cache-proxy: the credential in a 0600
#      file, TLS to the server with the test's CA; user.bazelrc names only
#      http://127.0.0.1:PORT);
#   3. a credential in user.bazelrc is refused before Bazel starts; a member
#      with a reader's proxy, in a new output base, its compiles from a copy
#      of the outer disk cache taken before the writer's build (so that no
#      Stage action is in it), is served every Stage action by the server
#      and uploads nothing (the access log shows no PUT during the build);
#   4. the same member's proxy with a CA that did not sign the server's
#      certificate: tools/bazel stops with a one-line reason before Bazel
#      starts, so no stage runs (Bazel 4.2.3 itself would only warn and
#      rebuild everything locally);
#   5. a poisoned result: the writer builds a variant (other seeds), then
#      stores, under the real training action's key, an action result whose
#      params.h5 is the variant's (a valid blob) and whose provenance record
#      is the real one with that file's SHA-256 swapped in. A member's build
#      accepts it (a remote cache hit, exit 0, params.h5 not the writer's),
#      and the member's results/ passes //paper:audit_tree;
#   6. //paper:verify refuses an output base it did not make (and leaves it
#      whole); in its own, no remote cache, its compiles from that copy
#      (--compile-cache), on the member's results it names params.h5 with
#      both hashes and exits 1 (the sampling stage, rebuilt beside it, is
#      equal), and leaves the member's results/ byte for byte as it was;
#   7. no password appears in any record, manifest, log or output above,
#      in any file under any output base (java.log included), or in ps.
set -euo pipefail

t_start=$SECONDS
work="${TEST_TMPDIR:?run under bazel test}"
# shellcheck source=tests/util/nested_bazel.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/util/nested_bazel.sh"
# shellcheck source=tests/cache/cache_lib.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/cache/cache_lib.sh"
workspace_root
server="$root/tools/cache-server"
src="$work/src"
# The cache outside TEST_TMPDIR: started as root, the server's workers run
# as potts-cache, which cannot enter /root where Bazel keeps TEST_TMPDIR.
cache=$(mktemp -d /tmp/potts-cache-test.XXXXXX)
chmod 0711 "$cache"
mkdir -p "$work/home" "$work/user_root" "$work/tls"
copy_workspace "$src"
# The member's results/: the two stages, the sampling stage's data left
# out, so that verify must rebuild it to feed the training.
mkdir -p "$src/demo"
cat >"$src/demo/BUILD" <<'EOF'
load("//paper:results.bzl", "results_index")
results_index(
    name = "index",
    targets = {
        "//stages/sample:quick": "summary.json",
        "//stages/train:quick_factored": "*",
    },
)
cc_binary(
    name = "collect",
    srcs = ["//paper:collect.cc"],
    args = ["$(rootpath :index)"],
    data = [":index"],
    deps = ["//lib/core:io", "//lib/provenance:results", "//paper:cli"],
)
EOF

trap '"$root/tools/cache-proxy" stop "$work/proxy" >/dev/null 2>&1 || true; "$server" stop "$cache" >/dev/null 2>&1 || true; cleanup_nested; rm -rf "$cache"' EXIT

# Credentials: made here, never on a command line (passwd reads stdin).
W_PASS="writer-$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')"
R_PASS="reader-$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')"
printf '%s\n' "$W_PASS" | "$server" passwd "$work/writers.htpasswd" ci >/dev/null
printf '%s\n' "$R_PASS" | "$server" passwd "$work/readers.htpasswd" alice >/dev/null

# A CA, a server certificate it signs (localhost, 127.0.0.1), and a CA that
# signed nothing here.
(cd "$work/tls" &&
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=potts test CA" -keyout ca.key -out ca.pem 2>/dev/null &&
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=wrong CA" -keyout wrong.key -out wrong.pem 2>/dev/null &&
  openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr 2>/dev/null &&
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >san.ext &&
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext \
    -out server.pem 2>/dev/null) || fail "openssl could not make the test's certificates"

# 0. Refusals, each with its one-line reason.
refused() {  # refused WHAT EXPECTED-WORDS ARGS...: start must fail saying so
  local what=$1 words=$2
  shift 2
  if "$server" start "$work/refused" 1 "$@" >"$work/refused.out" 2>&1; then
    "$server" stop "$work/refused" >/dev/null 2>&1 || true
    fail "tools/cache-server started $what"
  fi
  grep -q "$words" "$work/refused.out" || fail "refusing $what: expected '$words', got: $(cat "$work/refused.out")"
  echo "refused $what: $(cat "$work/refused.out")"
}
refused "credentials on 0.0.0.0 without TLS" "without TLS" --bind 0.0.0.0 --writers "$work/writers.htpasswd"
refused "anonymous writes on 0.0.0.0" "anyone who reaches" --bind 0.0.0.0 --open
refused "a server with no writers' rule" "who may store" --readers "$work/readers.htpasswd"

start_server "$cache" --writers "$work/writers.htpasswd" --readers "$work/readers.htpasswd" \
  --tls "$work/tls/server.pem" "$work/tls/server.key"
base="https://127.0.0.1:$port"
curl_() { curl -sS --cacert "$work/tls/ca.pem" "$@"; }

# 1. Who may do what, with curl.
key=$(printf 'trusted cache test %s' "$$" | sha256sum | cut -d' ' -f1)
put_as() {  # put_as USER:PASS|-: the HTTP status of a PUT to /ac/<key>
  local auth=()
  [[ $1 == - ]] || auth=(-u "$1")
  printf 'an action result' | curl_ "${auth[@]}" -o /dev/null -w '%{http_code}' -X PUT --data-binary @- "$base/ac/$key"
}
code=$(put_as -)
[[ $code == 401 || $code == 403 ]] || fail "anonymous PUT: expected 401 or 403, got $code"
[[ ! -e $cache/ac/$key ]] || fail "anonymous PUT stored $cache/ac/$key"
code=$(put_as "alice:$R_PASS")
[[ $code == 401 || $code == 403 ]] || fail "reader's PUT: expected 401 or 403, got $code"
[[ ! -e $cache/ac/$key ]] || fail "reader's PUT stored $cache/ac/$key"
code=$(put_as "ci:$W_PASS")
[[ $code == 201 || $code == 204 ]] || fail "writer's PUT: expected 201 or 204, got $code"
[[ $(cat "$cache/ac/$key") == "an action result" ]] || fail "writer's PUT: $cache/ac/$key not stored"
code=$(curl_ -o /dev/null -w '%{http_code}' "$base/ac/$key")
[[ $code == 401 || $code == 403 ]] || fail "anonymous GET with a readers' file: expected 401 or 403, got $code"
[[ $(curl_ -u "alice:$R_PASS" "$base/ac/$key") == "an action result" ]] || fail "reader's GET: not served"
rm "$cache/ac/$key"
# Plain HTTP to the TLS port, with a writer's credential: refused, nothing stored.
code=$(printf 'an action result' | curl -sS -u "ci:$W_PASS" -o /dev/null -w '%{http_code}' -X PUT --data-binary @- "http://127.0.0.1:$port/ac/$key")
[[ $code == 400 || $code == 497 ]] || fail "plain HTTP PUT to the TLS port: expected 400, got $code"
[[ ! -e $cache/ac/$key ]] || fail "plain HTTP PUT to the TLS port stored $cache/ac/$key"
echo "curl: anonymous and reader PUTs refused (nothing stored), writer's PUT stored, anonymous GET refused, reader's GET served, plain HTTP to the TLS port refused"
# TLS 1.2 without forward secrecy (RSA key exchange) is refused; with ECDHE
# it is served.
for suite in AES128-SHA AES256-SHA256 CAMELLIA128-SHA; do
  if openssl s_client -connect "127.0.0.1:$port" -tls1_2 -cipher "$suite" </dev/null >/dev/null 2>&1; then
    fail "TLS 1.2 with $suite (RSA key exchange, no forward secrecy) was accepted"
  fi
done
openssl s_client -connect "127.0.0.1:$port" -tls1_2 -cipher ECDHE </dev/null >/dev/null 2>&1 ||
  fail "TLS 1.2 with ECDHE was refused"
echo "TLS 1.2: RSA key exchange refused (AES128-SHA, AES256-SHA256, CAMELLIA128-SHA), ECDHE served"

# Client settings: the credential in a 0600 file that only the credential
# proxy reads (tools/cache-proxy: TLS to the cache with the given CA);
# user.bazelrc names the proxy on loopback, with no credential, so none
# reaches Bazel, its command line or its server log.
proxy="$root/tools/cache-proxy"
pport=""
client_rc() {  # client_rc USER PASS CA.pem: (re)start the proxy with that credential
  "$proxy" stop "$work/proxy" >/dev/null 2>&1 || true
  (umask 077 && printf '%s:%s\n' "$1" "$2" >"$work/credential")
  local try p
  for try in 1 2 3 4 5 6 7 8; do
    p=${pport:-$((20000 + (RANDOM * 32768 + RANDOM) % 40000))}
    if "$proxy" start "$work/proxy" "$p" --upstream "https://localhost:$port" --credential "$work/credential" \
        --ca "$3" >"$work/proxy.out" 2>&1; then pport=$p; break; fi
    pport=""
  done
  [[ -n $pport ]] || fail "tools/cache-proxy could not start: $(cat "$work/proxy.out")"
  printf 'build:shared-cache --remote_cache=http://127.0.0.1:%s\n' "$pport" >"$src/user.bazelrc"
}
puts() { grep -c '"PUT ' "$cache/.server/access.log" || true; }
ac_served() { grep -cE '"GET /ac/[0-9a-f]+ HTTP/[0-9.]+" 200 ' "$cache/.server/access.log" || true; }

# Credentials never on a command line: tools/bazel refuses them in
# POTTS_CACHE_URL (it would append them to Bazel's arguments) and in flags,
# before any Bazel starts, and warns about a rc file others can read.
client_side() {  # client_side LOG ENV... -- ARGS...: tools/bazel in the copy; sets rc
  local log=$1 envs=()
  shift
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  set +e
  (cd "$src" && env HOME="$work/home" "${OUTER_ENV[@]}" "${envs[@]}" tools/bazel --batch \
    --output_user_root="$work/user_root" --output_base="$work/ob_refused" "$@") >"$log" 2>&1
  rc=$?
  set -e
}
client_side "$work/refuse1.log" POTTS_CACHE_URL="https://alice:$R_PASS@127.0.0.1:$port" -- build --config=shared-cache //stages/sample:quick
[[ $rc -ne 0 ]] && grep -q 'POTTS_CACHE_URL holds credentials' "$work/refuse1.log" ||
  fail "a credential in POTTS_CACHE_URL was not refused: $(cat "$work/refuse1.log")"
grep -qF "$R_PASS" "$work/refuse1.log" && fail "the refusal printed the password"
client_side "$work/refuse2.log" -- build --config=shared-cache "--remote_cache=https://alice:$R_PASS@127.0.0.1:$port" //stages/sample:quick
[[ $rc -ne 0 ]] && grep -q 'credential on the command line' "$work/refuse2.log" ||
  fail "a credential in --remote_cache on the command line was not refused: $(cat "$work/refuse2.log")"
[[ ! -d $work/ob_refused ]] || fail "Bazel started although tools/bazel refused the credential"
echo "tools/bazel refuses a credential in POTTS_CACHE_URL and on the command line, before Bazel starts"

# 2. The writer (CI): both Stage actions run and are uploaded. Before it,
# the compiles the member and verify may take from a local cache.
snapshot_compiles
client_rc ci "$W_PASS" "$work/tls/ca.pem"
nested_build 2 "$src" "$work/ob_ci" shared-cache-writer outer
[[ $rc -eq 0 ]] || { tail -30 "$work/log2" >&2; fail "build 2 (writer) exited $rc; log above"; }
stage_actions 2 >"$work/stages2"
[[ $(grep -c '^miss' "$work/stages2") -eq ${#TARGETS[@]} ]] || fail "build 2: expected ${#TARGETS[@]} Stage actions run, got: $(tr '\n' ';' <"$work/stages2")"
[[ $(puts) -gt 0 ]] || fail "build 2: the writer uploaded nothing (access log)"
hashes "$work/ob_ci" >"$work/hashes_ci"
echo "build 2 (writer, TLS): both Stage actions ran; $(puts) PUTs"

# 3. A member: reader's credential, new output base, the compiles' copy. First,
# a credential in user.bazelrc itself is refused before Bazel starts (Bazel
# would write it into java.log).
(umask 077 && printf 'build:shared-cache --remote_cache=https://alice:%s@localhost:%s\n' "$R_PASS" "$port" >"$src/user.bazelrc")
client_side "$work/rcrefused.log" -- build --config=shared-cache //stages/sample:quick
[[ $rc -ne 0 ]] && grep -q 'holds a cache credential' "$work/rcrefused.log" ||
  fail "a credential in user.bazelrc was not refused: $(cat "$work/rcrefused.log")"
grep -qF "$R_PASS" "$work/rcrefused.log" && fail "the refusal printed the password"
[[ ! -d $work/ob_refused ]] || fail "Bazel started although tools/bazel refused the rc file"
client_rc alice "$R_PASS" "$work/tls/ca.pem"
before=$(puts)
served_before=$(ac_served)
nested_build 3 "$src" "$work/ob_member" shared-cache compiles
[[ $rc -eq 0 ]] || { tail -30 "$work/log3" >&2; fail "build 3 (reader) exited $rc; log above"; }
stage_actions 3 >"$work/stages3"
if grep -q '^miss' "$work/stages3" || [[ $(grep -c '^hit' "$work/stages3") -ne ${#TARGETS[@]} ]]; then
  fail "build 3: expected every Stage action served by the cache, got: $(tr '\n' ';' <"$work/stages3")"
fi
[[ $(puts) -eq $before ]] || fail "build 3: a reader's build sent $(($(puts) - before)) PUTs"
(($(ac_served) - served_before >= ${#TARGETS[@]})) ||
  fail "build 3: the server served $(($(ac_served) - served_before)) action results, expected the ${#TARGETS[@]} Stage actions' (access log)"
diff "$work/hashes_ci" <(hashes "$work/ob_member") >&2 || fail "build 3: outputs differ from the writer's"
echo "build 3 (reader, TLS): every Stage action a cache hit, no PUT, outputs equal to the writer's"

# 4. The member's proxy with a CA that did not sign the server's certificate.
client_rc alice "$R_PASS" "$work/tls/wrong.pem"
rm -f "$work/exec4.json"
nested_build 4 "$src" "$work/ob_wrongca" shared-cache none
[[ $rc -ne 0 ]] || fail "build 4: a build through a certificate its trust store does not vouch for went ahead"
grep -q 'TLS failed' "$work/log4" || { cat "$work/log4" >&2; fail "build 4: no clear message about the certificate (log above)"; }
[[ ! -s $work/exec4.json ]] || fail "build 4: Bazel ran actions (execution log written)"
[[ ! -d $work/ob_wrongca/execroot ]] || fail "build 4: Bazel started in $work/ob_wrongca"
echo "build 4 (wrong CA): stopped before Bazel started, no stage ran: $(grep -m1 'TLS failed' "$work/log4")"

# 5. A poisoned result. The variant: every quick training run with another seed.
var="$work/variant"
cp -R "$src" "$var"
sed -i 's/^    seed = seed,$/    seed = seed + 10,/' "$var/stages/train/BUILD"
grep -q 'seed = seed + 10,' "$var/stages/train/BUILD" || fail "$var/stages/train/BUILD: no 'seed = seed,' line to change"
client_rc ci "$W_PASS" "$work/tls/ca.pem"
cp "$src/user.bazelrc" "$var/user.bazelrc"
ac_with() { grep -l --binary-files=text "$1" "$cache"/ac/* 2>/dev/null | sort || true; }
real_ac=$(ac_with stages/train/quick_factored/params.h5)
[[ $(wc -w <<<"$real_ac") -eq 1 ]] || fail "expected one action result for the real training, found: $real_ac"
nested_build 5 "$var" "$work/ob_variant" shared-cache-writer outer
[[ $rc -eq 0 ]] || { tail -30 "$work/log5" >&2; fail "build 5 (variant) exited $rc; log above"; }
rm "$var/user.bazelrc"
p_real=$(grep '^stages/train/quick_factored/params.h5 ' "$work/hashes_ci" | cut -d' ' -f2)
r_real=$(grep '^stages/train/quick_factored/provenance.json ' "$work/hashes_ci" | cut -d' ' -f2)
vdir=$(out_dir "$work/ob_variant" stages/train/quick_factored)
p_var=$(sha256sum "$vdir/params.h5" | cut -d' ' -f1)
[[ $p_var != "$p_real" ]] || fail "the variant's params.h5 equals the real one: no poison to store"
[[ $(stat -c %s "$vdir/params.h5") -eq $(stat -c %s "$cache/cas/$p_real") ]] ||
  fail "the variant's params.h5 is not the real one's size: the action result cannot be edited in place"
[[ -f $cache/cas/$p_var ]] || fail "the variant's params.h5 is not in the cache"
# The forged record: the real one with params.h5's hash swapped (same size).
sed "s/$p_real/$p_var/" "$cache/cas/$r_real" >"$work/forged.json"
r_forged=$(sha256sum "$work/forged.json" | cut -d' ' -f1)
[[ $(stat -c %s "$work/forged.json") -eq $(stat -c %s "$cache/cas/$r_real") ]] || fail "forged record: size changed"
LC_ALL=C sed "s/$p_real/$p_var/; s/$r_real/$r_forged/" "$real_ac" >"$work/poisoned_ac"
cmp -s "$real_ac" "$work/poisoned_ac" && fail "the action result $real_ac names neither hash"
[[ $(stat -c %s "$work/poisoned_ac") -eq $(stat -c %s "$real_ac") ]] || fail "poisoned action result: size changed"
# Stored through the server, as any writer could.
[[ $(curl_ -u "ci:$W_PASS" -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$work/forged.json" "$base/cas/$r_forged") == 201 ]] ||
  fail "writer's PUT of the forged record failed"
code=$(curl_ -u "ci:$W_PASS" -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$work/poisoned_ac" "$base/ac/$(basename "$real_ac")")
[[ $code == 201 || $code == 204 ]] || fail "writer's PUT of the poisoned action result: $code"
echo "poisoned: $(basename "$real_ac") now maps params.h5 to the variant's $p_var and the record to $r_forged"

# The member builds and collects: Bazel cannot tell.
client_rc alice "$R_PASS" "$work/tls/ca.pem"
# The member's output base of build 3, its stage outputs dropped (the
# compiled tools stay), so that Bazel must fetch the stages again.
drop_stage_outputs "$work/ob_member"
nested_build 6 "$src" "$work/ob_member" shared-cache none
[[ $rc -eq 0 ]] || { tail -30 "$work/log6" >&2; fail "build 6 (member, poisoned) exited $rc; log above"; }
stage_actions 6 >"$work/stages6"
grep -q "^hit Stage ${TARGETS[1]}\$" "$work/stages6" || fail "build 6: ${TARGETS[1]} not served by the cache: $(tr '\n' ';' <"$work/stages6")"
got=$(sha256sum "$(out_dir "$work/ob_member" stages/train/quick_factored)/params.h5" | cut -d' ' -f1)
[[ $got == "$p_var" ]] || fail "build 6: params.h5 is $got, not the poisoned $p_var"
echo "build 6 (member): accepted the poisoned result: exit 0, a cache hit, params.h5 = $p_var"
member_results="$work/member_results"
run_member() {  # run_member LOG TARGET [ARGS...]: `bazel run` in the member's output base
  local log=$1
  shift
  set +e
  (cd "$src" && env HOME="$work/home" "${OUTER_ENV[@]}" tools/bazel --batch \
    --output_user_root="$work/user_root" --output_base="$work/ob_member" \
    run --config=shared-cache --noincompatible_strict_action_env "${OUTER_CACHE_FLAGS[@]}" --symlink_prefix=/ "$@") >"$log" 2>&1
  rc=$?
  set -e
}
run_member "$work/collect.log" //demo:collect -- --dest "$member_results"
[[ $rc -eq 0 ]] || { tail -20 "$work/collect.log" >&2; fail "collecting the member's results exited $rc"; }
run_member "$work/audit.log" //paper:audit_tree -- "$member_results"
[[ $rc -eq 0 ]] || { tail -20 "$work/audit.log" >&2; fail "//paper:audit_tree on the member's results exited $rc"; }
echo "the member's results pass //paper:audit_tree: $(tail -1 "$work/audit.log")"

# 6. The rebuilder. An output base that already exists, made by someone
# else (a stand-in for one that a build fronted by the shared cache filled),
# is refused and left as it is; in a new one, the tools compile with no
# remote cache, from the copy of the outer disk cache (--compile-cache).
mkdir -p "$work/ob_foreign"
echo "not the rebuilder's" >"$work/ob_foreign/foreign"
run_member "$work/verify_refused.log" //paper:verify -- --results "$member_results" \
  --stage //stages/sample:quick --output-base "$work/ob_foreign"
[[ $rc -ne 0 ]] && grep -q "was not made by //paper:verify" "$work/verify_refused.log" &&
  [[ -e $work/ob_foreign/foreign ]] || { tail -5 "$work/verify_refused.log" >&2; fail "verify used or removed an output base it did not make"; }
echo "verify refused an output base it did not make, and left it whole"
before=$(cd "$member_results" && find . -type f -exec sha256sum {} + | sort)
run_member "$work/verify.log" //paper:verify -- --results "$member_results" \
  --stage //stages/sample:quick --stage //stages/train:quick_factored \
  --output-base "$work/ob_verify" --compile-cache "$work/compiles"
cat "$work/verify.log" | grep -E '^(verify|equal|DIFFERS|FAILED|STALE)' || true
[[ $rc -eq 1 ]] || { tail -30 "$work/verify.log" >&2; fail "verify exited $rc, expected 1 (a stage differs)"; }
grep -q "no remote cache; the given compile cache $work/compiles" "$work/verify.log" ||
  fail "verify did not compile in the given cache, without a remote cache"
grep -qE "^DIFFERS +${TARGETS[1]}: .*params.h5: recorded $p_var, rebuilt $p_real" "$work/verify.log" ||
  fail "verify did not name params.h5 with both hashes (log above)"
grep -qE "^equal +${TARGETS[0]}" "$work/verify.log" || fail "verify: the honest ${TARGETS[0]} is not reported equal"
after=$(cd "$member_results" && find . -type f -exec sha256sum {} + | sort)
[[ $before == "$after" ]] || fail "verify changed the member's results/"
echo "verify: ${TARGETS[1]} DIFFERS naming params.h5 and both hashes; exit 1; the member's results/ unchanged"

# 7. No credential anywhere the project or Bazel writes: every file under
# every output base (java.log included), the logs, the member's results, and
# the process list, before anything is cleaned up (the access log holds the
# user names, never a password; only the proxy's 0600 files hold one).
ps_leak=$(ps -eo args | grep -F -e "$W_PASS" -e "$R_PASS" | grep -v grep || true)
[[ -z $ps_leak ]] || fail "a password is on a command line: $ps_leak"
ob_leaks=$(grep -rlF -e "$W_PASS" -e "$R_PASS" "$work"/ob_* "$work/user_root" 2>/dev/null || true)
[[ -z $ob_leaks ]] || fail "a password appears under an output base: $ob_leaks"
[[ -n $(find "$work"/ob_* -name java.log -print -quit) ]] || fail "no java.log was scanned"
leaks=$(grep -rlF -e "$W_PASS" -e "$R_PASS" "$member_results" "$work"/exec*.json "$work"/log* "$work"/*.log \
  "$cache/.server/access.log" "$cache/.server/error.log" "$(out_dir "$work/ob_ci" stages/train/quick_factored)" 2>/dev/null || true)
[[ -z $leaks ]] || fail "a password appears in: $leaks"
echo "no password in the records, manifest, execution logs, build logs or server logs"
echo "PASS in $((SECONDS - t_start)) s"
