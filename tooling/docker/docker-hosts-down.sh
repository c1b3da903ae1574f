#!/usr/bin/env bash
# Stops the Docker hosts of tooling/docker/docker-hosts-up.sh and removes what that script made: their
# processes (dockerd by its pidfile, then whatever is left in the host's network namespace and
# cgroups), data, network namespaces, veth pairs and the bridge. Touches nothing else; the default
# Docker daemon keeps running. Idempotent.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=docker-hosts-lib.sh
. "$ROOT/tooling/docker/docker-hosts-lib.sh"

[ "$(id -u)" -eq 0 ] || dh_die "needs root"

names=()
for path in /run/netns/sandbox-server-h[1-9] "$DH_RUN"/h[1-9]; do
  [ -e "$path" ] || continue
  name="${path##*/}"
  name="${name#sandbox-server-}"
  [[ " ${names[*]-} " == *" $name "* ]] || names+=("$name")
done

# A clean stop first, all hosts at once, so each dockerd unmounts and records its containers as
# stopped; what is still there after 15 s is killed.
pids=()
for name in "${names[@]}"; do
  if pid="$(dh_dockerd_pid "$name")"; then
    kill -TERM "$pid" 2>/dev/null || true
    pids+=("$pid")
  fi
done
for _ in $(seq 1 75); do
  alive=0
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
  [ "$alive" -eq 0 ] && break
  sleep 0.2
done

for name in "${names[@]}"; do
  dh_kill_host "$name" || true
  dh_remove_cgroups "$name"
  ns="$(dh_netns "$name")"
  [ -e "/run/netns/$ns" ] && ip netns del "$ns"
  ip link del "sbxh-$name" 2>/dev/null || true
  rm -rf "${DH_RUN:?}/$name" "${DH_DATA:?}/$name" "${DH_STATE:?}/$name"
  dh_log "$name: down"
done

if ip link show "$DH_BRIDGE" >/dev/null 2>&1; then
  ip link del "$DH_BRIDGE"
  dh_log "bridge $DH_BRIDGE removed"
fi
rm -f "$DH_STATE/env"
rmdir "$DH_STATE" "$DH_RUN" "$DH_DATA" 2>/dev/null || true
