#!/usr/bin/env bash
# Controls a cluster started by tooling/postgres/postgres-up.sh:
#   tooling/postgres/postgres-ctl.sh DIR stop    fast shutdown (connections are cut), data kept
#   tooling/postgres/postgres-ctl.sh DIR start   starts it again on the same port
#   tooling/postgres/postgres-ctl.sh DIR down    stops it if running and removes DIR
set -euo pipefail

dir="${1:?usage: postgres-ctl.sh DIR stop|start|down}"
action="${2:?usage: postgres-ctl.sh DIR stop|start|down}"
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tooling/postgres/postgres-lib.sh
. "$here/postgres-lib.sh"

case "$dir" in
  */sandbox-server-pg.*) ;;
  *) echo "[postgres-ctl] $dir is not a cluster of postgres-up.sh" >&2; exit 2 ;;
esac
[ -d "$dir/data" ] || { echo "[postgres-ctl] no cluster in $dir" >&2; exit 1; }
bindir="$(pg_bindir)"
user="$(stat -c %U "$dir/data")"
ctl() { as_pg_user "$user" "$bindir/pg_ctl" -D "$dir/data" "$@"; }

case "$action" in
  stop) ctl -m fast -w stop >/dev/null ;;
  start) ctl -l "$dir/server.log" -w -t 30 start >/dev/null ;;
  down)
    if ctl status >/dev/null 2>&1; then ctl -m fast -w stop >/dev/null; fi
    rm -rf "$dir"
    ;;
  *) echo "[postgres-ctl] unknown action $action" >&2; exit 2 ;;
esac
