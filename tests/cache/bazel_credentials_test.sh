#!/usr/bin/env bash
# tools/bazel keeps credentials off Bazel's command line in every form, and
# never sends one in clear text: each case below reached Bazel before.
#   * --remote_cache URL and --remote_cache=URL with user information;
#   * --remote_header / --remote_cache_header naming Authorization, joined
#     or as the next argument, in any case;
#   * a credential in the user's rc file (user information in a URL, an
#     Authorization header): Bazel writes rc options into java.log;
#   * the same spelled as Bazel's rc parser reads it: a tab or two spaces
#     after the flag, quotes or a backslash inside a word, an escaped URL,
#     in a file reached by import or try-import, or given by --bazelrc.
# A stand-in for Bazel (BAZEL_REAL) records whether it ran.
set -euo pipefail
work="${TEST_TMPDIR:?run under bazel test}"
fail() { echo "FAIL: $*" >&2; exit 1; }
ws="$work/ws"
mkdir -p "$ws/tools"
cp "$TEST_SRCDIR/$TEST_WORKSPACE/tools/bazel" "$TEST_SRCDIR/$TEST_WORKSPACE/tools/debian.sh" \
  "$TEST_SRCDIR/$TEST_WORKSPACE/tools/bazelrc_words.py" "$ws/tools/"
cp "$TEST_SRCDIR/$TEST_WORKSPACE/.bazelrc" "$ws/.bazelrc"  # it try-imports user.bazelrc
cat >"$work/fake_bazel" <<FAKE
#!/usr/bin/env bash
echo ran >"$work/ran"
FAKE
chmod +x "$work/fake_bazel"
export BAZEL_REAL="$work/fake_bazel" HOME="$work/home"
mkdir -p "$HOME"

refused() {  # refused WHAT ARGS...: tools/bazel must stop before Bazel runs
  local what=$1
  shift
  rm -f "$work/ran"
  if "$ws/tools/bazel" "$@" >"$work/out" 2>&1; then fail "$what: accepted"; fi
  [[ ! -e $work/ran ]] || fail "$what: Bazel ran"
  ! grep -q secret "$work/out" || fail "$what: the refusal prints the password"
  echo "refused $what: $(head -c 120 "$work/out")"
}
refused "--remote_cache URL (separate)" build --remote_cache https://u:secret@cache.example:8443 //x
refused "--remote_cache=URL" build --remote_cache=https://u:secret@cache.example:8443 //x
refused "--remote_header Authorization (separate)" build --remote_header "Authorization=Basic dTpz" //x
refused "--remote_header=authorization" build "--remote_header=authorization=Basic dTpz" //x
refused "--remote_cache_header=Authorization" build "--remote_cache_header=Authorization=Basic dTpz" //x
refused "--remote_cache_header AUTHORIZATION" build --remote_cache_header "AUTHORIZATION=Basic dTpz" //x

# Accepted: the same flags without a credential reach Bazel.
rm -f "$work/ran"
"$ws/tools/bazel" build --remote_cache https://cache.example:8443 --remote_header x-team=a //x >/dev/null
[[ -e $work/ran ]] || fail "a URL without a credential did not reach Bazel"

# A credential in user.bazelrc, even mode 0600: Bazel would write it into
# java.log (and over http:// off loopback, send it in clear text).
echo "build:shared-cache --remote_cache=http://ci:secret@cache.example:8080" >"$ws/user.bazelrc"
chmod 600 "$ws/user.bazelrc"
refused "a credential in user.bazelrc" build --config=shared-cache //x
grep -q "cache-proxy" "$work/out" || fail "the refusal does not name the proxy: $(cat "$work/out")"
echo 'build --remote_header=Authorization=Basic c2VjcmV0' >"$ws/user.bazelrc"
refused "an Authorization header in user.bazelrc" build //x
# Every spelling Bazel's rc tokenizer turns into a credential.
while IFS= read -r line; do
  printf '%s\n' "$line" >"$ws/user.bazelrc"
  refused "user.bazelrc: $line" build //x
done <<'FORMS'
build --remote_header	Authorization=Basic c2VjcmV0
build --remote_header  Authorization=Basic c2VjcmV0
build --remote_header=Author\ization=Basic c2VjcmV0
build --remote_header=Author""ization=Basic c2VjcmV0
build --remote_hea""der=Authorization=Basic c2VjcmV0
build --remote_cache=https:\/\/alice:secret@cache.example
build --remote_cache=https:/""/alice:secret@cache.example
FORMS
echo 'build --remote_cache=https://alice:secret@cache.example' >"$work/other.rc"
for kind in import try-import; do
  echo "$kind $work/other.rc" >"$ws/user.bazelrc"
  refused "a credential in a file user.bazelrc reaches by $kind" build //x
done
rm -f "$ws/user.bazelrc"
refused "a credential in a --bazelrc file" --bazelrc="$work/other.rc" build //x
# A comment naming a credential is no option: accepted.
echo '# never: --remote_cache=https://alice:secret@cache.example' >"$ws/user.bazelrc"
rm -f "$work/ran"
"$ws/tools/bazel" build //x >/dev/null
[[ -e $work/ran ]] || fail "a comment in user.bazelrc stopped the build"
echo "bazel_credentials_test: ok"
