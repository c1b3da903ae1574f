#!/usr/bin/env bash
# Runs the README's walkthrough as written: every fenced block preceded by a `<!-- readme-test -->`
# line, in order, in one `bash -euo pipefail`, against a control plane started here (built first,
# process runtime, a temporary DATA_DIR, a free port). The blocks read SANDBOX_SERVER_URL and
# DATA_DIR with the defaults `npm start` uses, so they run unchanged against this server.
# Stops the server by its PID and removes what it started; fails if any block fails.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[test-readme] %s\n' "$*" >&2; }

command -v jq >/dev/null 2>&1 || {
  log "jq is missing: bash tooling/ci/install-deps.sh installs it"
  exit 1
}

tmp=$(mktemp -d)
server_pid=""
cleanup() {
  local status=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    remove_sandboxes || true
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ] && [ -f "$tmp/server.log" ]; then
    log "server log (last 40 lines):"
    tail -n 40 "$tmp/server.log" >&2 || true
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT

# Sandboxes outlive a control plane that stops; the walkthrough's are deleted before it does.
remove_sandboxes() {
  local key ids
  key=$(cat "$DATA_DIR/admin-api-key" 2>/dev/null) || return 0
  ids=$(curl -sS -H "Authorization: Bearer $key" "$SANDBOX_SERVER_URL/api/v1/sandboxes/search" |
    jq -r '.items[].id') || return 0
  for id in $ids; do
    curl -sS -o /dev/null -H "Authorization: Bearer $key" -X DELETE \
      "$SANDBOX_SERVER_URL/api/v1/sandboxes/$id" || true
  done
}

# 1. The blocks, in order.
awk '
  /^<!-- readme-test -->$/ { marked = 1; next }
  marked && /^```/ && !inside { inside = 1; next }
  inside && /^```/ { inside = 0; marked = 0; print ""; next }
  inside { print }
' README.md >"$tmp/readme.sh"
blocks=$(grep -c '^<!-- readme-test -->$' README.md || true)
if [ "$blocks" -eq 0 ] || [ ! -s "$tmp/readme.sh" ]; then
  log "no <!-- readme-test --> blocks found in README.md"
  exit 1
fi
log "$blocks marked blocks, $(wc -l <"$tmp/readme.sh") lines"

# 2. The control plane, as `npm start` builds and runs it.
npx --no-install turbo run build --filter=@sandbox-server/server... --output-logs=errors-only
port=$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
export DATA_DIR="$tmp/data" SANDBOX_SERVER_URL="http://127.0.0.1:$port"
mkdir -p "$DATA_DIR"
PORT=$port HOST=127.0.0.1 SANDBOX_RUNTIME=process LOG_LEVEL=warn \
  node apps/server/dist/server.js >"$tmp/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 300); do
  curl -sf "$SANDBOX_SERVER_URL/ready" >/dev/null 2>&1 && [ -s "$DATA_DIR/admin-api-key" ] && break
  kill -0 "$server_pid" 2>/dev/null || { log "the server exited"; exit 1; }
  sleep 0.2
done
curl -sf "$SANDBOX_SERVER_URL/ready" >/dev/null || { log "the server did not become ready"; exit 1; }
log "server $SANDBOX_SERVER_URL (pid $server_pid), DATA_DIR $DATA_DIR"

# 3. The walkthrough.
if bash -euo pipefail "$tmp/readme.sh" >"$tmp/readme.out" 2>&1; then
  cat "$tmp/readme.out" >&2
  log "README walkthrough: $blocks blocks passed"
else
  status=$?
  cat "$tmp/readme.out" >&2
  log "README walkthrough FAILED (exit $status)"
  exit "$status"
fi
