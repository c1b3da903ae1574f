#!/usr/bin/env bash
# Runs a command against a freshly started control plane (the built bundle, process runtime, a
# temporary DATA_DIR and a free port), then stops the server by its PID and removes what it made.
# The command sees SANDBOX_SERVER_URL, SANDBOX_API_KEY and DATA_DIR.
#
#   scripts/with-server.sh <command> [args...]
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[with-server] %s\n' "$*" >&2; }

[ -f apps/server/dist/server.js ] || npx turbo run build --filter=@sandbox-server/server --output-logs=errors-only

data=$(mktemp -d "${TMPDIR:-/tmp}/with-server.XXXXXX")
out="$data/server.out"
SANDBOX_RUNTIME=process PORT=0 DATA_DIR="$data" LOG_LEVEL=warn node apps/server/dist/server.js >"$out" 2>&1 &
pid=$!
cleanup() {
  local status=$?
  set +e
  # Sandboxes left by the command go with the server's data (the runtime deletes them on delete;
  # this is the safety net): stop the server, then every agent server under this DATA_DIR.
  kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  local marked
  # grep answers 2 for the /proc entries that vanish while it reads: not a failure here.
  marked=$( (grep -l "SANDBOX_DIR=$data/" /proc/[0-9]*/environ 2>/dev/null || true) | cut -d/ -f3 | tr '\n' ' ')
  if [ -n "$marked" ]; then
    # A bubblewrapped sandbox is the marked bwrap and everything below it.
    ps -eo pid=,ppid= | awk -v roots="$marked" '
      BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
      { parent[$1] = $2 }
      END { changed = 1; while (changed) { changed = 0; for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; changed = 1 } }
            for (p in keep) print p }' | xargs -r kill -9 2>/dev/null || true
  fi
  rm -rf "$data"
  exit "$status"
}
trap cleanup EXIT

url=""
for _ in $(seq 1 300); do
  url=$(sed -n 's/^Sandbox Server is listening on \(http[^ ]*\).*/\1/p' "$out" | head -n1)
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$out" >&2; log "the server exited before listening"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$out" >&2; log "the server did not start within 30 s"; exit 1; }
log "server $pid on $url"

SANDBOX_SERVER_URL="$url" SANDBOX_API_KEY="$(tr -d '[:space:]' <"$data/admin-api-key")" DATA_DIR="$data" "$@"
