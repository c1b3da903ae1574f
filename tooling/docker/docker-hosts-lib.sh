# shellcheck shell=bash disable=SC2034
# Shared by docker-hosts-up.sh, docker-hosts-down.sh and kill-docker-host.sh: where the extra
# Docker hosts (one dockerd per network namespace, for multi-host tests) keep their state.
# Sourced, not run.

# Everything these scripts create is named here; nothing else on the machine is touched.
DH_STATE="${DOCKER_HOSTS_STATE:-/tmp/sandbox-server-docker-hosts}"
DH_DATA="${DOCKER_HOSTS_DATA:-/var/lib/sandbox-server-docker-hosts}"
DH_RUN="/run/sandbox-server-docker-hosts"
DH_BRIDGE="sbxh-br0"
# The bridge subnet: the machine is .1, host i is .(10+i). Traffic stays between the machine and
# the namespaces (no forwarding, no NAT is set up).
DH_SUBNET_PREFIX="${DOCKER_HOSTS_SUBNET_PREFIX:-10.213.0}"
DH_GATEWAY="$DH_SUBNET_PREFIX.1"
# shellcheck source=tooling/image/sandbox-image.sh
. "$(dirname "${BASH_SOURCE[0]}")/../image/sandbox-image.sh"
DH_IMAGE_REPO="${IMAGE_REPO:-$SANDBOX_IMAGE_REPO}"

dh_log() { printf '[docker-hosts] %s\n' "$*" >&2; }
dh_die() { dh_log "error: $*"; exit 1; }

dh_name() { printf 'h%s' "$1"; }
dh_netns() { printf 'sandbox-server-%s' "$1"; }
dh_address() { printf '%s.%s' "$DH_SUBNET_PREFIX" "$((10 + ${1#h}))"; }
dh_socket() { printf '%s/%s/docker.sock' "$DH_RUN" "$1"; }
dh_pidfile() { printf '%s/%s/dockerd.pid' "$DH_RUN" "$1"; }
dh_cgroup() { printf 'sandbox-server-%s' "$1"; }

dh_dockerd_pid() {
  local pidfile
  pidfile="$(dh_pidfile "$1")"
  [ -f "$pidfile" ] || return 1
  local pid
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && printf '%s' "$pid"
}

dh_answers() { docker -H "unix://$(dh_socket "$1")" version >/dev/null 2>&1; }

# Every process of a host: whatever runs in its network namespace (dockerd, its containerd, the
# shims, docker-proxy) and whatever runs in its containers' cgroups (the containers have network
# namespaces of their own, but their cgroups sit under the host's --cgroup-parent).
dh_host_pids() {
  local name="$1" ns cg
  ns="$(dh_netns "$name")"
  cg="$(dh_cgroup "$name")"
  {
    if [ -e "/run/netns/$ns" ]; then ip netns pids "$ns" 2>/dev/null || true; fi
    local dir
    for dir in /sys/fs/cgroup/*/"$cg" /sys/fs/cgroup/"$cg"; do
      [ -d "$dir" ] || continue
      find "$dir" -name cgroup.procs -exec cat {} + 2>/dev/null || true
    done
  } | sort -un
}

# SIGKILL to every process of the host until none is left (new ones may appear while a shim dies).
dh_kill_host() {
  local name="$1" pids
  for _ in $(seq 1 50); do
    pids="$(dh_host_pids "$name")"
    [ -z "$pids" ] && return 0
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 0.1
  done
  dh_log "warning: processes of $name still alive after SIGKILL: $(dh_host_pids "$name" | tr '\n' ' ')"
  return 1
}

# The cgroup directories dockerd's --cgroup-parent created; empty ones can be removed.
dh_remove_cgroups() {
  local cg dir
  cg="$(dh_cgroup "$1")"
  for dir in /sys/fs/cgroup/*/"$cg" /sys/fs/cgroup/"$cg"; do
    [ -d "$dir" ] || continue
    find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
}
