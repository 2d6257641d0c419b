# Sourced by tools/cache-server and tools/cache-proxy: what both need to run
# Debian's nginx safely, as root or not. The caller defines die().
NGINX=/usr/sbin/nginx

# conf_path WHAT PATH: PATH may go into nginx.conf as it is (absolute, and
# none of the characters nginx's syntax gives a meaning: a ';' would end a
# directive and let the path add its own).
conf_path() {
  [[ $2 == /* ]] || die "$1 $2: expected an absolute path"
  [[ $2 =~ ^/[A-Za-z0-9._/+@%,:=-]*$ ]] ||
    die "$1 '$2': expected a path of letters, digits and . _ / + @ % , : = - (no space, quote, ';', '{', '}' or newline)"
}

# root_owned_dir DIR: as root, DIR and every parent are root's, and no one
# else may change them (a parent may be sticky, as /tmp is): another user's
# directory could hold links that root would follow.
root_owned_dir() {
  local d=$1
  [[ $(id -u) -eq 0 ]] || return 0
  [[ ! -L $d ]] || die "$d is a symbolic link: as root, give the directory itself"
  while :; do
    [[ $(stat -c %u -- "$d") -eq 0 ]] || die "$d is owned by $(stat -c %U -- "$d"), not root: as root, serve a directory root owns"
    [[ $d == "$1" || -k $d || -z $(find "$d" -maxdepth 0 -perm -0002 2>/dev/null) ]] ||
      die "$d is writable by every user: as root, serve a directory no one else may change"
    [[ $d != / ]] || break
    d=$(dirname -- "$d")
  done
  [[ -z $(find "$1" -maxdepth 0 -perm /0022 2>/dev/null) ]] ||
    die "$1 is writable by others: as root, serve a directory no one else may change"
}

# worker_user: as root, the unprivileged system user nginx's workers run as
# (created on first use); they parse every client's HTTP.
worker_user() {
  id -u potts-cache >/dev/null 2>&1 ||
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin potts-cache ||
    die "cannot create the system user potts-cache for the workers"
}

# prepare_state SRV: the server's own directory (pid file, configuration,
# credential copies, logs), the caller's and closed to everyone else, so
# nothing in it can be a link another user planted (nginx writes its pid
# file through any link). As root its group is potts-cache (0750): the
# workers read the credential copies. The workers' temporary directory tmp/
# is root's (0755) and new on every start; nginx creates its subdirectories
# for the workers, so root never changes the owner of anything a worker
# could have replaced. Logs are kept, 0640 (nginx would make them 0644).
prepare_state() {
  local srv=$1 f
  if [[ -e $srv || -L $srv ]]; then
    [[ -d $srv && ! -L $srv ]] || die "$srv: expected the server's directory, found another kind of file"
    [[ $(stat -c %u -- "$srv") == "$(id -u)" ]] ||
      die "$srv is owned by $(stat -c %U -- "$srv"), not by you: its files could be links you would write through; remove it"
  else
    (umask 077 && mkdir -- "$srv") || die "cannot create $srv"
  fi
  if [[ $(id -u) -eq 0 ]]; then
    chgrp potts-cache "$srv" && chmod 0750 "$srv" || die "cannot set the group of $srv"
  else
    chmod 0700 "$srv"
  fi
  rm -rf -- "$srv/tmp" "$srv/nginx.pid" || die "cannot clear $srv"
  mkdir -m 0755 -- "$srv/tmp" || die "cannot create $srv/tmp"
  for f in "$srv/access.log" "$srv/error.log"; do
    [[ -f $f && ! -L $f ]] || { rm -rf -- "$f"; (umask 027 && set -C && : >"$f") || die "cannot create $f"; }
    chmod 0640 "$f"
  done
}

# private_file FILE: FILE removed and created anew, empty, mode 0600, by
# this process (noclobber: O_EXCL), for a configuration or a credential.
private_file() {
  rm -f -- "$1" && (umask 077 && set -C && : >"$1") || die "cannot create $1"
}

# master_of PIDFILE CONF: the pid in PIDFILE, if it is a running nginx
# master of this user started with CONF. A pid file names any process its
# writer likes; stop and status act only on what this check accepts.
master_of() {
  local pid
  [[ -r $1 && ! -L $1 ]] || return 1
  pid=$(<"$1")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  is_master "$pid" "$2" && echo "$pid"
}
is_master() {  # is_master PID CONF: nginx, this user's, started with -c CONF (the same file)
  local title w prev="" conf=""
  [[ $(readlink "/proc/$1/exe" 2>/dev/null) == "$NGINX" ]] || return 1
  [[ $(stat -c %u "/proc/$1" 2>/dev/null) == "$(id -u)" ]] || return 1
  # nginx retitles its master "nginx: master process <its command line>";
  # the paths in that line have no spaces (conf_path).
  title=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || return 1
  [[ $title == "nginx: master process $NGINX "* ]] || return 1
  for w in ${title#nginx: master process }; do
    [[ $prev != -c ]] || conf=$w
    prev=$w
  done
  [[ -n $conf && $conf -ef $2 ]]
}

# stop_masters CONF: stop every nginx master of this user started with
# CONF (after a start that failed half-way: nothing is left running).
stop_masters() {
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    is_master "$p" "$1" && kill -TERM "$p" 2>/dev/null || true
  done
}

# start_nginx SRV CONF WHAT: test CONF, start nginx on it and print its
# pid; on any failure, no nginx of CONF is left running.
start_nginx() {
  local srv=$1 conf=$2 what=$3 i pid
  "$NGINX" -t -q -p "$srv" -c "$conf" -e "$srv/error.log" 2>>"$srv/error.log" ||
    die "nginx rejected $conf (see $srv/error.log)"
  if ! "$NGINX" -p "$srv" -c "$conf" -e "$srv/error.log" 2>>"$srv/error.log"; then
    stop_masters "$conf"
    die "nginx failed to start $what (port in use? see $srv/error.log)"
  fi
  for i in $(seq 50); do
    pid=$(master_of "$srv/nginx.pid" "$conf") && { echo "$pid"; return 0; }
    sleep 0.1
  done
  stop_masters "$conf"
  die "nginx did not start $what (see $srv/error.log)"
}

# stop_master PID WHAT: TERM, then wait up to 10 s for it to exit.
stop_master() {
  local i
  kill -TERM "$1"
  for i in $(seq 100); do
    kill -0 "$1" 2>/dev/null || { echo "$2: stopped (pid $1)"; return 0; }
    sleep 0.1
  done
  die "nginx (pid $1) did not exit within 10 s"
}

# Shared http{} settings. Connections: each worker holds up to 4096 (two
# workers: 8192), and a client that has not sent its request line and
# headers within 10 s is dropped; 600 idle TLS connections that had taken
# all 256 slots of the default no longer lock readers out. A Basic user name
# that is not a plain name (a newline would forge a line of error.log) is
# refused before auth_basic logs it.
NGINX_LIMITS='worker_rlimit_nofile 10000;
events { worker_connections 4096; }'
NGINX_HTTP_LIMITS='  client_header_timeout 10s;
  client_body_timeout 30s;
  send_timeout 30s;
  reset_timedout_connection on;
  map $remote_user $bad_user { "" 0; "~^[A-Za-z0-9._-]+$" 0; default 1; }'
NGINX_SERVER_GUARD='    if ($bad_user) { return 400; }'
