#!/usr/bin/env bash
# Kills one Docker host started by tooling/docker/docker-hosts-up.sh as a machine dies: dockerd, its
# containerd, the shims, docker-proxy and every container process, all with SIGKILL. Its data
# stays; tooling/docker/docker-hosts-up.sh starts it again. Usage: kill-docker-host.sh h2
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=docker-hosts-lib.sh
. "$ROOT/tooling/docker/docker-hosts-lib.sh"

NAME="${1:-}"
[[ "$NAME" =~ ^h[1-9]$ ]] || dh_die "usage: $0 hN (a host of tooling/docker/docker-hosts-up.sh)"
[ -e "/run/netns/$(dh_netns "$NAME")" ] || dh_die "$NAME is not a host of tooling/docker/docker-hosts-up.sh"
[ -n "$(dh_host_pids "$NAME")" ] || { dh_log "$NAME: nothing runs"; exit 0; }
dh_kill_host "$NAME"
rm -f "$(dh_pidfile "$NAME")"
dh_log "$NAME: killed (dockerd, containerd, shims, proxies, containers)"
