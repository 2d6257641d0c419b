# Sourced by tools/bazel, tools/cache-server and tools/reapi-worker: installs
# missing Debian packages on first use (as root, or through sudo), naming what it
# installs; touches nothing else. The caller defines die().
ensure_debian_packages() {  # ensure_debian_packages PROGRAM PACKAGE...
  local prog=$1 p installed missing=()
  shift
  # One dpkg-query for every package (one call each cost ~18 ms, half a
  # second per Bazel call); it prints nothing for, and exits 1 on, a package
  # it has never seen, which the callers' pipefail must not take as an error.
  installed=" $( (dpkg-query -W -f='${Package}:${Status}\n' "$@" 2>/dev/null || true) |
    sed -n 's/:install ok installed$//p' | tr '\n' ' ') "
  for p in "$@"; do
    [[ $installed == *" $p "* ]] || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  [[ -r /etc/debian_version ]] || die "not Debian: install ${missing[*]} yourself"
  local SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 ||
      die "${missing[*]} not installed and neither root nor sudo: ask an administrator to run apt-get install ${missing[*]}"
    SUDO=(sudo)
  fi
  echo "$prog: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq >&2 || die "apt-get update failed"
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
    die "apt-get install failed for: ${missing[*]}"
}
