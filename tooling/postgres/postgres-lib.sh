# Helpers shared by postgres-up.sh and postgres-ctl.sh (sourced, not run).

# The newest installed PostgreSQL's bin directory (Debian layout, else pg_config's).
pg_bindir() {
  local newest
  newest="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -n "$newest" ] && [ -x "$newest/initdb" ]; then
    echo "$newest"
  elif command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    pg_config --bindir
  else
    return 1
  fi
}

# Who runs the server: root cannot, so the `postgres` account (or one created for this).
pg_run_user() {
  if [ "$(id -u)" -ne 0 ]; then
    id -un
  elif id postgres >/dev/null 2>&1; then
    echo postgres
  else
    id sandbox-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin sandbox-pg
    echo sandbox-pg
  fi
}

# Runs a command as that user (directly when we are that user already).
as_pg_user() {
  local user="$1"
  shift
  if [ "$(id -un)" = "$user" ]; then
    "$@"
  else
    runuser -u "$user" -- "$@"
  fi
}
