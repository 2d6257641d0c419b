#!/usr/bin/env bash
# tools/debian.sh's ensure_debian_packages with dpkg-query and apt-get stubbed:
# it installs exactly the packages dpkg does not report as "install ok
# installed" (unknown, removed with its configuration left, half installed),
# never one whose name another's contains, and nothing when all are there.
set -euo pipefail
source "$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
die() { fail "die: $*"; }
bin="$TEST_TMPDIR/bin"
mkdir -p "$bin"
# dpkg-query -W -f=FORMAT PKG...: one line per package it knows, as dpkg does.
cat >"$bin/dpkg-query" <<'STUB'
#!/usr/bin/env bash
shift 2
rc=0
for p in "$@"; do
  case $p in
    g++|g++-12|libhdf5-dev) echo "$p:install ok installed" ;;
    nginx) echo "$p:deinstall ok config-files" ;;
    pandoc) echo "$p:install ok half-installed" ;;
    *) echo "dpkg-query: no packages found matching $p" >&2; rc=1 ;;
  esac
done
exit $rc
STUB
cat >"$bin/apt-get" <<'STUB'
#!/usr/bin/env bash
echo "$*" >>"$TEST_TMPDIR/apt.log"
STUB
cat >"$bin/id" <<'STUB'
#!/usr/bin/env bash
echo 0
STUB
chmod +x "$bin"/*
PATH="$bin:$PATH"
: >"$TEST_TMPDIR/apt.log"
ensure_debian_packages test g++ g++-12 libhdf5-dev 2>/dev/null
[[ ! -s $TEST_TMPDIR/apt.log ]] || fail "installed something though every package is there: $(cat "$TEST_TMPDIR/apt.log")"
ensure_debian_packages test g++ nginx pandoc libhdf5 hdf5-dev no-such-package 2>/dev/null
install=$(grep '^install' "$TEST_TMPDIR/apt.log") || fail "nothing installed: $(cat "$TEST_TMPDIR/apt.log")"
want="install -y -qq --no-install-recommends nginx pandoc libhdf5 hdf5-dev no-such-package"
[[ $install == "$want" ]] || fail "apt-get $install, expected apt-get $want"
echo "ensure_debian_packages: installs only what dpkg lacks"
