#!/usr/bin/env bash
# Starts N extra Docker hosts on this machine for multi-host tests (default 2): each a dockerd in
# a network namespace of its own, reached over a bridge from the root namespace, with the
# agent-server image loaded from the default daemon. Idempotent: what exists and answers is kept;
# a host that was killed (tooling/docker/kill-docker-host.sh) is started again over its old data, which
# is how a test brings a dead host back. Needs root. The default daemon is only read from
# (`docker save`); it is never restarted or reconfigured.
#
# Writes the DOCKER_HOSTS value to $DOCKER_HOSTS_STATE/env (default
# /tmp/sandbox-server-docker-hosts/env) as `DOCKER_HOSTS=...` and prints the value on stdout:
#   h1=tcp://10.213.0.11:2375@10.213.0.11,h2=tcp://10.213.0.12:2375@10.213.0.12
# Each host also answers on a unix socket, /run/sandbox-server-docker-hosts/hN/docker.sock.
# Take everything down again with tooling/docker/docker-hosts-down.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=docker-hosts-lib.sh
. "$ROOT/tooling/docker/docker-hosts-lib.sh"

COUNT="${1:-2}"
WAIT_SECONDS="${DOCKER_HOSTS_WAIT_SECONDS:-60}"
case "$COUNT" in
  [1-9]) ;;
  *) dh_die "usage: $0 [number of hosts, 1-9]" ;;
esac
[ "$(id -u)" -eq 0 ] || dh_die "needs root (network namespaces, dockerd)"
for tool in ip unshare nsenter dockerd docker; do
  command -v "$tool" >/dev/null 2>&1 || dh_die "$tool is not installed"
done
docker info >/dev/null 2>&1 || dh_die "the default Docker daemon does not answer (tooling/docker/docker-up.sh); its image is loaded into the hosts"

VERSION="$(node -p "require('$ROOT/apps/agent-server/package.json').version")"
IMAGES=("$DH_IMAGE_REPO:$VERSION" "$DH_IMAGE_REPO:latest")
for image in "${IMAGES[@]}"; do
  docker image inspect "$image" >/dev/null 2>&1 || dh_die "$image is not on the default daemon (npm run image)"
done

mkdir -p "$DH_STATE" "$DH_RUN" /run/containerd

ensure_bridge() {
  if ! ip link show "$DH_BRIDGE" >/dev/null 2>&1; then
    # Read whole first: with pipefail, grep -q leaving early would fail the pipeline (SIGPIPE).
    if grep -q "^$DH_SUBNET_PREFIX.0/24" <<<"$(ip route show)"; then
      dh_die "$DH_SUBNET_PREFIX.0/24 is already routed on this machine; set DOCKER_HOSTS_SUBNET_PREFIX"
    fi
    ip link add "$DH_BRIDGE" type bridge
    dh_log "bridge $DH_BRIDGE created"
  fi
  grep -q "inet $DH_GATEWAY/24" <<<"$(ip addr show dev "$DH_BRIDGE")" ||
    ip addr add "$DH_GATEWAY/24" dev "$DH_BRIDGE"
  ip link set "$DH_BRIDGE" up
}

ensure_namespace() {
  local name="$1" ns outside inside address
  ns="$(dh_netns "$name")"
  outside="sbxh-$name"
  inside="sbxh-$name-in"
  address="$(dh_address "$name")"
  [ -e "/run/netns/$ns" ] || ip netns add "$ns"
  if ! ip -n "$ns" link show eth0 >/dev/null 2>&1; then
    ip link del "$outside" 2>/dev/null || true
    ip link add "$outside" type veth peer name "$inside"
    ip link set "$outside" master "$DH_BRIDGE" up
    ip link set "$inside" netns "$ns"
    ip -n "$ns" link set "$inside" name eth0
    ip -n "$ns" addr add "$address/24" dev eth0
    dh_log "$name: namespace $ns, eth0 $address"
  fi
  # Up again after a test took the link down (a host cut off from the network).
  ip link set "$outside" up
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
}

start_dockerd() {
  local name="$1" i="${1#h}" ns address dir exec_root data_root
  ns="$(dh_netns "$name")"
  address="$(dh_address "$name")"
  dir="$DH_RUN/$name"
  exec_root="$dir/exec"
  data_root="$DH_DATA/$name"
  mkdir -p "$dir" "$exec_root" "$data_root" "$DH_STATE/$name"
  # Remains of a killed host (a shim or container that outlived its dockerd) go first.
  dh_kill_host "$name" || true
  rm -f "$(dh_pidfile "$name")" "$(dh_socket "$name")"
  # A mount namespace of its own, so that its containerd does not find the machine's
  # /run/containerd; nsenter rather than `ip netns exec`, which remounts /sys and loses the
  # cgroup mounts.
  setsid unshare --mount --propagation slave -- \
    nsenter --net="/run/netns/$ns" -- \
    sh -c 'mount -t tmpfs tmpfs /run/containerd && exec "$@"' sh \
    dockerd \
    --host "unix://$(dh_socket "$name")" \
    --host "tcp://$address:2375" \
    --data-root "$data_root" \
    --exec-root "$exec_root" \
    --pidfile "$(dh_pidfile "$name")" \
    --bip "10.214.$i.1/24" \
    --iptables=false --ip6tables=false --ip-masq=false --ip-forward=false \
    --storage-driver overlay2 \
    --cgroup-parent "/$(dh_cgroup "$name")" \
    </dev/null >>"$DH_STATE/$name/dockerd.log" 2>&1 &
  dh_log "$name: dockerd starting (log $DH_STATE/$name/dockerd.log)"
}

wait_for() {
  local name="$1" waited=0
  until dh_answers "$name" && docker -H "tcp://$(dh_address "$name"):2375" version >/dev/null 2>&1; do
    if [ "$waited" -ge "$((WAIT_SECONDS * 5))" ]; then
      tail -n 20 "$DH_STATE/$name/dockerd.log" >&2 || true
      dh_die "$name: dockerd did not answer within $WAIT_SECONDS s"
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
}

load_images() {
  local name="$1" host want have missing=()
  host="unix://$(dh_socket "$name")"
  for image in "${IMAGES[@]}"; do
    want="$(docker image inspect -f '{{.Id}}' "$image")"
    have="$(docker -H "$host" image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)"
    [ "$want" = "$have" ] || missing+=("$image")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  dh_log "$name: loading ${missing[*]}"
  docker save "${IMAGES[@]}" | docker -H "$host" load >/dev/null
}

ensure_bridge
value=""
for i in $(seq 1 "$COUNT"); do
  name="$(dh_name "$i")"
  ensure_namespace "$name"
  if dh_dockerd_pid "$name" >/dev/null && dh_answers "$name"; then
    dh_log "$name: dockerd already answers"
  elif dh_dockerd_pid "$name" >/dev/null; then
    dh_log "$name: dockerd is starting; waiting for it"
  else
    start_dockerd "$name"
  fi
done
loads=()
for i in $(seq 1 "$COUNT"); do
  name="$(dh_name "$i")"
  wait_for "$name"
  # The hosts load the image side by side.
  load_images "$name" &
  loads+=("$!")
  address="$(dh_address "$name")"
  value="${value:+$value,}$name=tcp://$address:2375@$address"
done
for pid in "${loads[@]}"; do wait "$pid" || dh_die "loading the image into a host failed"; done
printf 'DOCKER_HOSTS=%s\n' "$value" >"$DH_STATE/env"
dh_log "$COUNT host(s) up; DOCKER_HOSTS written to $DH_STATE/env"
printf '%s\n' "$value"
