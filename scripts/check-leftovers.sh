#!/usr/bin/env bash
# Fails when a test run left something behind: agent-server processes (plain or under bwrap) or
# containers and networks labelled by a sandbox server. Run after the suites in CI.
set -uo pipefail

log() { printf '[check-leftovers] %s\n' "$*" >&2; }
status=0

procs=$(pgrep -af 'agent-server(\.js)?( |$)' | grep -v -e pgrep -e check-leftovers || true)
if [ -n "$procs" ]; then
  log "agent-server processes still running after the tests:"
  printf '%s\n' "$procs" >&2
  status=1
fi

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  containers=$(docker ps -a --filter label=sandbox-server.managed --format '{{.ID}} {{.Names}} {{.Status}}')
  if [ -n "$containers" ]; then
    log "containers still present after the tests:"
    printf '%s\n' "$containers" >&2
    status=1
  fi
  networks=$(docker network ls --filter label=sandbox-server.managed --format '{{.ID}} {{.Name}}')
  if [ -n "$networks" ]; then
    log "networks still present after the tests:"
    printf '%s\n' "$networks" >&2
    status=1
  fi
fi

[ "$status" -eq 0 ] && log "nothing left behind."
exit "$status"
