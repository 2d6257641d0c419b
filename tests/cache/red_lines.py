#!/usr/bin/env python3
"""Each guard of the team tools, taken out, makes its test fail.

    python3 tests/cache/red_lines.py [NAME...]

For every mutation below (one guard of tools/ reverted to the hole it
closed), this copies tools/ and .bazelrc from the working tree into a
scratch runfiles tree, applies the mutation, runs the named test script of
tests/cache against it outside Bazel (seconds each; root and the user
nobody for the root cases, nginx on loopback), and prints the test's first
FAIL line, after running each test once on the tools as they are (it must
pass there). It exits 1 if a mutation no longer applies (the guard's text
changed: update the table) or leaves its test passing (the test no longer
sees the hole). Run by hand, not in CI: it is a check of the tests.
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# name: (test script, [(file, guard, mutation)], the hole)
MUTATIONS = {
    "stop_any_pid": ("server_root_test.sh", [
        ("tools/nginx_lib.sh", 'is_master "$pid" "$2" && echo "$pid"', 'echo "$pid"'),
    ], "stop kills whatever pid its pid file names"),
    "server_dir_owner": ("server_root_test.sh", [
        ("tools/nginx_lib.sh", '[[ $(stat -c %u -- "$srv") == "$(id -u)" ]] ||', "true ||"),
    ], "root uses a .server another user owns"),
    "chown_tmp": ("server_root_test.sh", [
        ("tools/nginx_lib.sh",
         'rm -rf -- "$srv/tmp" "$srv/nginx.pid" || die "cannot clear $srv"\n'
         '  mkdir -m 0755 -- "$srv/tmp" || die "cannot create $srv/tmp"',
         'rm -f -- "$srv/nginx.pid"; mkdir -p -m 0755 -- "$srv/tmp"; '
         '[[ $(id -u) -ne 0 ]] || chown -R potts-cache "$srv/tmp"'),
    ], "root chowns a tree the workers' user can rewrite"),
    "proxy_dir": ("server_root_test.sh", [
        ("tools/cache-proxy", '  root_owned_dir "$parent"', "  true"),
        ("tools/cache-proxy", '  prepare_state "$dir"', "  true"),
        ("tools/cache-proxy", '  private_file "$dir/auth.conf"', '  (umask 077 && : >>"$dir/auth.conf")'),
    ], "root writes the credential into another user's auth.conf"),
    "log_mode": ("server_root_test.sh", [
        ("tools/nginx_lib.sh", 'chmod 0640 "$f"', 'chmod 0644 "$f"'),
    ], "world-readable logs"),
    "log_injection": ("server_root_test.sh", [
        ("tools/nginx_lib.sh", "NGINX_SERVER_GUARD='    if ($bad_user) { return 400; }'", "NGINX_SERVER_GUARD=''"),
    ], "a user name's newline forges a line of error.log"),
    "final_newline": ("server_root_test.sh", [
        ("tools/cache-server", 'awk 1 "$readers" ${writers:+"$writers"}', 'cat "$readers" ${writers:+"$writers"}'),
    ], "a readers file without a final newline locks out its last reader"),
    "idle_connections": ("server_root_test.sh", [
        ("tools/nginx_lib.sh", "worker_connections 4096;", "worker_connections 256;"),
        ("tools/nginx_lib.sh", "client_header_timeout 10s;", "client_header_timeout 60s;"),
    ], "600 idle connections lock readers out"),
    "proxy_worker_root": ("server_root_test.sh", [
        ("tools/cache-proxy", 'userline="user potts-cache potts-cache;', 'userline="user root;'),
    ], "the proxy's workers run as root"),
    "conf_injection": ("server_rules_test.sh", [
        ("tools/nginx_lib.sh", "[[ $2 =~ ^/[A-Za-z0-9._/+@%,:=-]*$ ]] ||", "true ||"),
    ], "a path injects nginx directives"),
    "passwd_sticky": ("server_rules_test.sh", [
        ("tools/cache-server", '[[ -z $(find "$dir" -maxdepth 0 -perm -0002 2>/dev/null) ]] ||\n    die "$file: its',
         'true ||\n    die "$file: its'),
    ], "passwd writes in a world-writable directory"),
    "passwd_tmp_link": ("server_rules_test.sh", [
        ("tools/cache-server", 'tmp=$(umask 077 && mktemp "$dir/.htpasswd.XXXXXXXX")', 'tmp="$file.tmp"'),
    ], "passwd writes through a planted link"),
    "rc_tokens": ("bazel_credentials_test.sh", [
        ("tools/bazelrc_words.py", "def words_of(line):\n", 'def words_of(line):\n    return line.split("#")[0].split()\n'),
    ], "quotes and backslashes hide a credential in an rc file"),
    "rc_import": ("bazel_credentials_test.sh", [
        ("tools/bazelrc_words.py", '        if len(words) == 2 and words[0] in ("import", "try-import"):',
         "        if False:"),
    ], "an imported rc file is not read"),
    "rc_flag": ("bazel_credentials_test.sh", [
        ("tools/bazel", '  [[ $a != --bazelrc=* ]] || rc_given+=("${a#--bazelrc=}")', "  true"),
    ], "a --bazelrc= file is not read"),
    "proxy_impostor": ("proxy_identity_test.sh", [
        ("tools/bazel", '    [[ $uid == "$me" || $uid == 0 ]] && continue\n    die', "    continue\n    die"),
    ], "another user's listener on the proxy's port is trusted"),
}


def stop_scratch_nginx(scratch):
    """Kill any nginx master a mutated start left running in `scratch`."""
    out = subprocess.run(["pgrep", "-f", "nginx: master process.*" + scratch], capture_output=True, text=True).stdout
    for pid in out.split():
        subprocess.run(["kill", pid], check=False)


def run(name):
    test, edits, hole = MUTATIONS[name] if name in MUTATIONS else (name, [], None)
    scratch = tempfile.mkdtemp(prefix="red_lines.")
    os.chmod(scratch, 0o755)  # the root cases run parts as nobody
    try:
        tree = os.path.join(scratch, "src", "potts_attention")
        shutil.copytree(os.path.join(ROOT, "tools"), os.path.join(tree, "tools"), symlinks=True)
        shutil.copy(os.path.join(ROOT, ".bazelrc"), tree)
        for rel, guard, mutation in edits:
            path = os.path.join(tree, rel)
            with open(path) as f:
                text = f.read()
            if guard not in text:
                return False, f"{name}: the guard is no longer in {rel}: {guard[:60]!r}"
            with open(path, "w") as f:
                f.write(text.replace(guard, mutation, 1))
        os.makedirs(os.path.join(scratch, "tmp"))
        env = dict(os.environ, TEST_SRCDIR=os.path.join(scratch, "src"), TEST_WORKSPACE="potts_attention",
                   TEST_TMPDIR=os.path.join(scratch, "tmp"))
        r = subprocess.run(["timeout", "600", "bash", os.path.join(ROOT, "tests", "cache", test)], env=env,
                           cwd=scratch, capture_output=True, text=True)
        fails = [line for line in (r.stdout + r.stderr).splitlines() if line.startswith("FAIL")]
        if hole is None:  # the unmutated tools: the test must pass here first
            return r.returncode == 0, f"{test} on the tools as they are: exit {r.returncode} {fails[:1]}"
        if r.returncode == 0 or not fails:
            return False, f"{name} ({hole}): {test} still passes (exit {r.returncode})"
        return True, f"{name} ({hole}): {test}: {fails[0][:200]}"
    finally:
        stop_scratch_nginx(scratch)
        subprocess.run(["rm", "-rf", scratch], check=False)


def main():
    names = sys.argv[1:] or list(MUTATIONS)
    unknown = [n for n in names if n not in MUTATIONS]
    if unknown:
        sys.exit(f"red_lines.py: unknown mutation(s) {', '.join(unknown)}; known: {', '.join(MUTATIONS)}")
    bad = 0
    for test in sorted({MUTATIONS[n][0] for n in names}):
        ok, line = run(test)
        print(("green " if ok else "FAILS ") + line, flush=True)
        if not ok:
            sys.exit("red_lines.py: the test fails without any mutation; fix that first")
    for name in names:
        ok, line = run(name)
        print(("red   " if ok else "GREEN ") + line, flush=True)
        bad += not ok
    print(f"{len(names) - bad} of {len(names)} mutations made their test fail")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
