#!/usr/bin/env bash
# Builds the sandbox image sandbox-server/agent-server:<version> (and :latest) without needing a
# registry. Idempotent: an image labelled with the same content hash is reused, a bootstrapped
# base is reused. Progress goes to stderr; the built image reference is the only stdout line.
#
# Environment (all optional):
#   BASE_IMAGE     base for the Dockerfile (default node:20-bookworm-slim); used when present
#                  locally or pullable, else a local Debian bookworm + host node base is bootstrapped
#   IMAGE_REPO     repository of the result (default sandbox-server/agent-server)
#   DEBIAN_MIRROR  mirror for debootstrap (default: the one apt already uses)
#   PULL_TIMEOUT   seconds to try pulling BASE_IMAGE (default 20)
#   FORCE_BUILD=1  rebuild even when an image with the same content hash exists
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
AGENT_DIR="$ROOT/apps/agent-server"
DOCKERFILE="$AGENT_DIR/Dockerfile"
BUNDLE="$AGENT_DIR/dist/agent-server.js"
BASE_IMAGE="${BASE_IMAGE:-node:20-bookworm-slim}"
LOCAL_BASE="sandbox-server/base:bookworm-node20"
# shellcheck source=tooling/image/sandbox-image.sh
. "$ROOT/tooling/image/sandbox-image.sh"
IMAGE_REPO="${IMAGE_REPO:-$SANDBOX_IMAGE_REPO}"
PULL_TIMEOUT="${PULL_TIMEOUT:-20}"

log() { printf '[build-image] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# The first bookworm mirror apt is configured with, in deb822 (.sources) or one-line format.
detect_debian_mirror() {
  local found=""
  shopt -s nullglob
  local sources=(/etc/apt/sources.list.d/*.sources)
  local lists=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list)
  shopt -u nullglob
  if [ "${#sources[@]}" -gt 0 ]; then
    found="$(awk 'BEGIN { RS = "" }
      {
        uri = ""; ok = 0; n = split($0, lines, "\n")
        for (i = 1; i <= n; i++) {
          if (lines[i] ~ /^URIs:/) { split(lines[i], a, /[ \t]+/); uri = a[2] }
          if (lines[i] ~ /^Suites:/) {
            m = split(lines[i], s, /[ \t]+/)
            for (j = 2; j <= m; j++) if (s[j] == "bookworm") ok = 1
          }
        }
        if (ok && uri != "") { print uri; exit }
      }' "${sources[@]}" 2>/dev/null || true)"
  fi
  if [ -z "$found" ]; then
    found="$(cat "${lists[@]}" 2>/dev/null | sed -E 's/\[[^]]*\]//' |
      awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' || true)"
  fi
  printf '%s\n' "${found:-http://deb.debian.org/debian}"
}

ensure_daemon() {
  if ! docker info >/dev/null 2>&1; then
    log "no Docker daemon answers; running tooling/docker/docker-up.sh"
    bash "$ROOT/tooling/docker/docker-up.sh"
  fi
}

ensure_bundle() {
  log "building the agent-server bundle (npm run build -w @sandbox-server/agent-server)..."
  (cd "$ROOT" && npm run --silent build -w @sandbox-server/agent-server) >&2 ||
    die "the agent-server bundle did not build"
  [ -s "$BUNDLE" ] || die "expected bundle at $BUNDLE"
}

# Debian bookworm minbase plus the host's node binary: equivalent to node:20-bookworm-slim for
# what the agent server needs, built from the apt archive alone.
bootstrap_local_base() {
  if image_exists "$LOCAL_BASE"; then
    log "using the bootstrapped base $LOCAL_BASE (already present)"
    return
  fi
  [ "$(id -u)" -eq 0 ] || die "bootstrapping $LOCAL_BASE needs root (debootstrap, chroot)"
  local node_bin
  node_bin="$(readlink -f "$(command -v node)")" || die "no node binary on this host to copy"
  case "$(node --version)" in
    v20.*) ;;
    *) log "warning: host node is $(node --version), the base is named for node 20" ;;
  esac
  if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap..."
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi
  local mirror rootfs
  mirror="${DEBIAN_MIRROR:-$(detect_debian_mirror)}"
  rootfs="$(mktemp -d /var/tmp/sandbox-server-rootfs.XXXXXX)"
  # shellcheck disable=SC2064 # expand now: rootfs is local to this function
  trap "rm -rf '$rootfs'" EXIT
  log "bootstrapping Debian bookworm minbase from $mirror into $rootfs (about a minute)..."
  debootstrap --variant=minbase \
    --include=bash,coreutils,git,ca-certificates,procps,passwd,libstdc++6 \
    bookworm "$rootfs" "$mirror" >&2 || die "debootstrap failed"
  install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
  if ! chroot "$rootfs" /usr/local/bin/node --version >/dev/null 2>&1; then
    log "node does not run inside the rootfs; its libraries:"
    ldd "$node_bin" >&2 || true
    die "copied node binary does not run in the bootstrapped base"
  fi
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/tmp/*
  log "importing the rootfs as $LOCAL_BASE..."
  tar -C "$rootfs" --numeric-owner -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change "LABEL sandbox-server.base.node=$(node --version)" \
    --change 'CMD ["bash"]' \
    - "$LOCAL_BASE" >&2
  rm -rf "$rootfs"
  trap - EXIT
}

# Echoes the base image to build from.
resolve_base() {
  if image_exists "$BASE_IMAGE"; then
    log "using base $BASE_IMAGE (present locally)"
    echo "$BASE_IMAGE"
    return
  fi
  # A base bootstrapped earlier is as good and costs no registry round trip (offline machines).
  if [ "$BASE_IMAGE" = "node:20-bookworm-slim" ] && image_exists "$LOCAL_BASE"; then
    log "using the bootstrapped base $LOCAL_BASE (already present)"
    echo "$LOCAL_BASE"
    return
  fi
  log "trying to pull $BASE_IMAGE (up to ${PULL_TIMEOUT}s)..."
  if timeout "$PULL_TIMEOUT" docker pull "$BASE_IMAGE" >&2 2>/dev/null; then
    echo "$BASE_IMAGE"
    return
  fi
  log "$BASE_IMAGE cannot be pulled; falling back to a locally bootstrapped base"
  bootstrap_local_base
  echo "$LOCAL_BASE"
}

main() {
  command -v docker >/dev/null 2>&1 || die "docker CLI not found; run tooling/docker/docker-up.sh first"
  # Two builds at once (a test run and `npm run image`) would bootstrap and build twice.
  exec 9>"${TMPDIR:-/tmp}/sandbox-server-build-image.lock"
  if ! flock -n 9; then
    log "another build is running; waiting for it..."
    flock 9
  fi
  ensure_daemon
  ensure_bundle

  local base version hash image
  base="$(resolve_base)"
  version="$(node -p "require('$AGENT_DIR/package.json').version")"
  image="$IMAGE_REPO:$version"
  # The base's id is part of the hash so that a rebuilt base yields a rebuilt image.
  hash="$({
    cat "$DOCKERFILE" "$BUNDLE"
    docker image inspect --format '{{.Id}}' "$base"
  } | sha256sum | cut -c1-32)"

  local existing
  existing="$(docker images -q --filter "label=sandbox-server.content-hash=$hash" | head -n1)"
  if [ -n "$existing" ] && [ "${FORCE_BUILD:-0}" != "1" ]; then
    log "image with content hash $hash exists ($existing); tagging it $image and :latest"
    docker tag "$existing" "$image"
    docker tag "$existing" "$IMAGE_REPO:latest"
    echo "$image"
    return
  fi

  local context
  context="$(mktemp -d)"
  # shellcheck disable=SC2064
  trap "rm -rf '$context'" EXIT
  mkdir -p "$context/dist"
  cp "$DOCKERFILE" "$context/Dockerfile"
  cp "$BUNDLE" "$context/dist/agent-server.js"

  # Without the buildx plugin the CLI would refuse BuildKit; the classic builder also resolves
  # FROM against local images only, which is what an offline build needs.
  local builder_env=()
  docker buildx version >/dev/null 2>&1 || builder_env=(env DOCKER_BUILDKIT=0)

  log "building $image from $base (content hash $hash)..."
  "${builder_env[@]}" docker build \
    --build-arg "BASE_IMAGE=$base" \
    --label "sandbox-server.content-hash=$hash" \
    --label "org.opencontainers.image.version=$version" \
    --tag "$image" --tag "$IMAGE_REPO:latest" \
    "$context" >&2
  rm -rf "$context"
  trap - EXIT
  # Earlier builds lost their tags to this one; drop them rather than let them pile up.
  docker image prune -f --filter "label=sandbox-server.content-hash" >/dev/null || true
  # The bundle's code cache, made in the image by its own node, must be the one it starts from.
  local cache
  cache="$(docker run --rm --network none "$image" node /opt/agent-server/agent-server.js --code-cache-status)"
  [ "$cache" = "used" ] || die "the image's agent-server code cache is $cache, not used"
  log "built $image"
  echo "$image"
}

main "$@"
# Several Docker hosts (DOCKER_HOSTS, as the control plane reads it): every host gets the image,
# without a registry (tooling/docker/load-image-to-hosts.sh skips a host that already has it).
if [ -n "${DOCKER_HOSTS:-}" ]; then
  bash "$ROOT/tooling/docker/load-image-to-hosts.sh" >&2
fi
