#!/usr/bin/env bash
# Makes sure a Docker daemon answers on this machine, starting one if needed.
# Idempotent: exits 0 at once when `docker info` already works.
# Needs root on a machine without a daemon (installs docker.io from Debian's archive).
set -euo pipefail

LOG_FILE="${DOCKERD_LOG:-/tmp/dockerd.log}"
PID_FILE="${DOCKERD_PIDFILE:-/tmp/dockerd-sandbox-server.pid}"
WAIT_SECONDS="${DOCKERD_WAIT_SECONDS:-60}"

log() { printf '[docker-up] %s\n' "$*" >&2; }

daemon_answers() { docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && daemon_answers; then
  log "Docker daemon already answers ($(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'))."
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  log "no Docker daemon answers and this is not root: start Docker yourself (or run as root)."
  exit 1
fi

if ! command -v dockerd >/dev/null 2>&1; then
  log "dockerd not installed: installing docker.io from the Debian archive..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends docker.io iptables >/dev/null
  log "installed $(dockerd --version)."
fi

# A stale pid file from a daemon that died would make dockerd refuse to start.
if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
  rm -f /var/run/docker.pid
fi

if [ -f /var/run/docker.pid ] && kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
  log "dockerd is already starting (pid $(cat /var/run/docker.pid)); waiting for it."
else
  log "starting dockerd in the background (log: $LOG_FILE)..."
  # setsid detaches it from this shell's session so it outlives the script and CI step.
  # --userland-proxy=false: a published port is forwarded by iptables NAT instead of a
  # docker-proxy process per port (one fewer process per sandbox, no userspace copy of proxied
  # traffic); with the proxy, the first sandbox on a new network could wait a second or more for
  # its first /health answer (docs/adr/0013-docker-network-and-host-firewall.md).
  nohup setsid dockerd --userland-proxy=false >>"$LOG_FILE" 2>&1 </dev/null &
  echo $! >"$PID_FILE"
  log "dockerd pid $(cat "$PID_FILE")."
fi

for ((i = 0; i < WAIT_SECONDS; i++)); do
  if daemon_answers; then
    log "Docker daemon answers after ${i}s ($(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'))."
    exit 0
  fi
  sleep 1
done

log "Docker daemon did not answer within ${WAIT_SECONDS}s. Last lines of $LOG_FILE:"
tail -n 30 "$LOG_FILE" >&2 || true
exit 1
