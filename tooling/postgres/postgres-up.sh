#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests: Debian's postgresql (installed from the
# archive when missing, without its default cluster), initdb as an unprivileged user in a fresh
# temporary directory, listening on 127.0.0.1 only (a free port, no other TCP address), password
# authentication, one database. Prints the cluster's variables as KEY=VALUE lines and writes them
# to DIR/env (and to the file given with --env-file):
#   TEST_DATABASE_URL=postgres://postgres:<password>@127.0.0.1:<port>/sandbox_test
#   PG_TEST_DIR=<dir>            (tooling/postgres/postgres-ctl.sh <dir> stop|start|down)
# Usage: tooling/postgres/postgres-up.sh [--env-file FILE]
set -euo pipefail

log() { printf '[postgres-up] %s\n' "$*" >&2; }

env_file=""
while [ $# -gt 0 ]; do
  case "$1" in
    --env-file) env_file="$2"; shift 2 ;;
    *) log "unknown argument $1"; exit 2 ;;
  esac
done

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tooling/postgres/postgres-lib.sh
. "$here/postgres-lib.sh"

bindir="$(pg_bindir || true)"
if [ -z "$bindir" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    log "PostgreSQL is not installed and this is not root: apt-get install postgresql"
    exit 1
  fi
  log "installing postgresql from the Debian archive (without a default cluster)..."
  export DEBIAN_FRONTEND=noninteractive
  mkdir -p /etc/postgresql-common
  [ -e /etc/postgresql-common/createcluster.conf ] ||
    echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  bindir="$(pg_bindir)"
fi

user="$(pg_run_user)"
dir="$(mktemp -d "${TMPDIR:-/tmp}/sandbox-server-pg.XXXXXX")"
chmod 700 "$dir"
mkdir -p "$dir/socket"
password="$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s\n' "$password" >"$dir/pwfile"
[ "$(id -u)" -eq 0 ] && chown -R "$user" "$dir"

port="$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
as_pg_user "$user" "$bindir/initdb" -D "$dir/data" -U postgres --pwfile="$dir/pwfile" \
  --auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
  { log "initdb failed:"; cat "$dir/initdb.log" >&2; exit 1; }
rm -f "$dir/pwfile"
cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir/socket'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
as_pg_user "$user" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start >/dev/null ||
  { log "the server did not start:"; cat "$dir/server.log" >&2; exit 1; }

admin_url="postgres://postgres:${password}@127.0.0.1:${port}/postgres"
PGCONNECT_TIMEOUT=10 "$bindir/psql" -q -v ON_ERROR_STOP=1 "$admin_url" \
  -c "CREATE DATABASE sandbox_test" >/dev/null

{
  echo "TEST_DATABASE_URL=postgres://postgres:${password}@127.0.0.1:${port}/sandbox_test"
  echo "PG_TEST_DIR=$dir"
} >"$dir/env"
[ -n "$env_file" ] && cp "$dir/env" "$env_file"
log "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $dir; stop with tooling/postgres/postgres-ctl.sh $dir down)"
cat "$dir/env"
