#!/usr/bin/env bash
# Builds the control-plane image sandbox-server/server:<version> (and :latest) offline, from the
# locally present base image and a small staged build context (the bundles, the packages the
# server bundle keeps external, and a few Debian packages). Idempotent: an image labelled with the
# same content hash is reused. Progress goes to stderr; the built image reference is the only
# stdout line.
#
# Environment (all optional):
#   BASE_IMAGE     base for the Dockerfile (default sandbox-server/base:bookworm-node20, the one
#                  tooling/image/build-image.sh bootstraps; node:20-bookworm-slim works where present)
#   IMAGE_REPO     repository of the result (default sandbox-server/server)
#   REBUILD_BUNDLES=1  rebuild the server and agent-server bundles even when they exist
#   FORCE_BUILD=1  rebuild the image even when one with the same content hash exists
#   NO_DEBS=1      do not stage iptables/bubblewrap (.deb files from the host's apt)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SERVER_DIR="$ROOT/apps/server"
AGENT_DIR="$ROOT/apps/agent-server"
DOCKERFILE="$SERVER_DIR/Dockerfile"
SERVER_BUNDLE="$SERVER_DIR/dist/server.js"
# The ingest worker the server starts beside it (events followed on their own thread).
EVENT_WORKER_BUNDLE="$SERVER_DIR/dist/event-worker.js"
AGENT_BUNDLE="$AGENT_DIR/dist/agent-server.js"
LOCAL_BASE="sandbox-server/base:bookworm-node20"
BASE_IMAGE="${BASE_IMAGE:-$LOCAL_BASE}"
IMAGE_REPO="${IMAGE_REPO:-sandbox-server/server}"
HASH_LABEL="sandbox-server.server-content-hash"
# Debian packages the image gets when the host can stage them (their dependencies come along):
# iptables lets the control plane protect the host from sandboxes (with --cap-add NET_ADMIN),
# bubblewrap is what the process runtime would isolate with.
EXTRA_PACKAGES=(iptables bubblewrap)

log() { printf '[build-server-image] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

ensure_bundles() {
  if [ -s "$SERVER_BUNDLE" ] && [ -s "$EVENT_WORKER_BUNDLE" ] && [ -s "$AGENT_BUNDLE" ] && [ -d "$SERVER_DIR/dist/drizzle" ] && [ -d "$SERVER_DIR/dist/drizzle-pg" ] &&
    [ "${REBUILD_BUNDLES:-0}" != "1" ]; then
    log "using the existing bundles (REBUILD_BUNDLES=1 rebuilds them)"
    local newer
    newer="$(find "$ROOT/apps/server/src" "$ROOT/apps/agent-server/src" "$ROOT"/packages/*/src \
      -name '*.ts' -newer "$SERVER_BUNDLE" -print -quit 2>/dev/null || true)"
    [ -z "$newer" ] ||
      log "warning: sources changed since the bundles were built (e.g. ${newer#"$ROOT"/}); REBUILD_BUNDLES=1 rebuilds them"
    return
  fi
  log "building the server and agent-server bundles (turbo)..."
  (cd "$ROOT" && npx turbo run build --filter=@sandbox-server/server \
    --filter=@sandbox-server/agent-server) >&2 || die "the bundles did not build"
  [ -s "$SERVER_BUNDLE" ] || die "expected the server bundle at $SERVER_BUNDLE"
  [ -s "$AGENT_BUNDLE" ] || die "expected the agent-server bundle at $AGENT_BUNDLE"
}

# Echoes the base image to build from; bootstraps the local one when nothing is present.
resolve_base() {
  if image_exists "$BASE_IMAGE"; then
    log "using base $BASE_IMAGE (present locally)"
    echo "$BASE_IMAGE"
    return
  fi
  log "$BASE_IMAGE is not present; running tooling/image/build-image.sh (it bootstraps the base)..."
  bash "$ROOT/tooling/image/build-image.sh" >/dev/null || die "tooling/image/build-image.sh failed"
  local candidate
  for candidate in "$BASE_IMAGE" "$LOCAL_BASE" node:20-bookworm-slim; do
    if image_exists "$candidate"; then
      log "using base $candidate"
      echo "$candidate"
      return
    fi
  done
  die "no base image: neither $BASE_IMAGE nor $LOCAL_BASE nor node:20-bookworm-slim is present"
}

# The native modules (better-sqlite3, ssh2, cpu-features) were compiled for this host's node.
check_node_abi() {
  local base="$1" host_abi base_abi
  host_abi="$(node -p 'process.versions.modules')"
  base_abi="$(docker run --rm --network none --entrypoint node "$base" -p 'process.versions.modules')" ||
    die "node does not run in $base"
  [ "$host_abi" = "$base_abi" ] ||
    die "$base has node ABI $base_abi, the native modules here were built for $host_abi ($(node --version)); use a base with the same node major"
}

# Stages the .deb files of EXTRA_PACKAGES and the dependencies the base lacks: from apt's cache
# when there, else apt-get download (the Debian mirror, as for the base itself). Any failure only
# costs the feature; the image is built without them.
stage_debs() {
  local base="$1" dir="$2"
  mkdir -p "$dir"
  if [ "${NO_DEBS:-0}" = "1" ]; then
    log "NO_DEBS=1: building without iptables and bubblewrap"
    return
  fi
  if ! command -v apt-cache >/dev/null 2>&1 ||
    ! grep -q '^VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
    log "warning: this host is not Debian bookworm with apt; building without iptables and bubblewrap"
    return
  fi
  local base_codename
  base_codename="$(docker run --rm --network none --entrypoint sh "$base" -c \
    '. /etc/os-release && echo "$VERSION_CODENAME"' 2>/dev/null || true)"
  if [ "$base_codename" != "bookworm" ]; then
    log "warning: $base is not Debian bookworm; building without iptables and bubblewrap"
    return
  fi
  local installed wanted missing=()
  installed="$(docker run --rm --network none --entrypoint dpkg-query "$base" \
    -W -f '${Package}\n' | LC_ALL=C sort -u)"
  wanted="$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "${EXTRA_PACKAGES[@]}" 2>/dev/null |
    grep -v -e '^ ' -e '^<' | LC_ALL=C sort -u)"
  mapfile -t missing < <(LC_ALL=C comm -23 <(printf '%s\n' "$wanted") <(printf '%s\n' "$installed"))
  [ "${#missing[@]}" -gt 0 ] || return 0
  log "staging ${missing[*]}..."
  local pkg version arch file
  for pkg in "${missing[@]}"; do
    version="$(apt-cache policy "$pkg" | awk '/Candidate:/ { print $2 }')"
    arch="$(apt-cache show "$pkg=$version" 2>/dev/null | awk '/^Architecture:/ { print $2; exit }')"
    # Cached files escape the epoch's colon as %3a.
    file="/var/cache/apt/archives/${pkg}_${version//:/%3a}_${arch}.deb"
    if [ -f "$file" ]; then
      cp "$file" "$dir/"
    elif ! (cd "$dir" && timeout 60 apt-get download -qq "$pkg=$version" >/dev/null 2>&1); then
      log "warning: $pkg could not be fetched; building without iptables and bubblewrap"
      rm -f "$dir"/*.deb
      return
    fi
  done
}

stage_context() {
  local base="$1" context="$2"
  mkdir -p "$context/app/apps/server/dist" "$context/app/apps/agent-server/dist"
  cp "$DOCKERFILE" "$context/Dockerfile"
  cp "$SERVER_BUNDLE" "$context/app/apps/server/dist/server.js"
  cp "$EVENT_WORKER_BUNDLE" "$context/app/apps/server/dist/event-worker.js"
  cp -r "$SERVER_DIR/dist/drizzle" "$context/app/apps/server/dist/drizzle"
  cp -r "$SERVER_DIR/dist/drizzle-pg" "$context/app/apps/server/dist/drizzle-pg"
  cp "$AGENT_BUNDLE" "$context/app/apps/agent-server/dist/agent-server.js"
  # The server bundle is ESM, the agent server's CommonJS; their package.json says so (and
  # nothing else is needed of it).
  echo '{"type":"module"}' >"$context/app/apps/server/package.json"
  echo '{"type":"commonjs"}' >"$context/app/apps/agent-server/package.json"
  node "$ROOT/tooling/image/stage-server-modules.mjs" "$context/app"
  stage_debs "$base" "$context/debs"
}

# Everything that ends up in the image: the staged files (paths and contents) and the base's id.
content_hash() {
  local base="$1" context="$2"
  {
    (cd "$context" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    docker image inspect --format '{{.Id}}' "$base"
  } | sha256sum | cut -c1-32
}

main() {
  command -v docker >/dev/null 2>&1 || die "docker CLI not found; run tooling/docker/docker-up.sh first"
  docker info >/dev/null 2>&1 || die "no Docker daemon answers; run tooling/docker/docker-up.sh first"
  exec 9>"${TMPDIR:-/tmp}/sandbox-server-build-server-image.lock"
  if ! flock -n 9; then
    log "another build is running; waiting for it..."
    flock 9
  fi
  ensure_bundles

  local base version image context hash existing
  base="$(resolve_base)"
  check_node_abi "$base"
  version="$(node -p "require('$SERVER_DIR/package.json').version")"
  image="$IMAGE_REPO:$version"

  context="$(mktemp -d)"
  # shellcheck disable=SC2064 # expand now: context is local to main
  trap "rm -rf '$context'" EXIT
  log "staging the build context in $context..."
  stage_context "$base" "$context"
  hash="$(content_hash "$base" "$context")"
  log "build context: $(du -sh "$context" | cut -f1), content hash $hash"

  existing="$(docker images -q --filter "label=$HASH_LABEL=$hash" | head -n1)"
  if [ -n "$existing" ] && [ "${FORCE_BUILD:-0}" != "1" ]; then
    log "image with content hash $hash exists ($existing); tagging it $image and :latest"
    docker tag "$existing" "$image"
    docker tag "$existing" "$IMAGE_REPO:latest"
    echo "$image"
    return
  fi

  # Without the buildx plugin the CLI would refuse BuildKit; the classic builder also resolves
  # FROM against local images only, which is what an offline build needs.
  local builder_env=()
  docker buildx version >/dev/null 2>&1 || builder_env=(env DOCKER_BUILDKIT=0)

  log "building $image from $base..."
  "${builder_env[@]}" docker build \
    --network none \
    --build-arg "BASE_IMAGE=$base" \
    --label "$HASH_LABEL=$hash" \
    --label "org.opencontainers.image.title=sandbox-server control plane" \
    --label "org.opencontainers.image.version=$version" \
    --tag "$image" --tag "$IMAGE_REPO:latest" \
    "$context" >&2
  # Earlier builds lost their tags to this one; drop them rather than let them pile up.
  docker image prune -f --filter "label=$HASH_LABEL" >/dev/null || true
  log "built $image ($(docker image inspect --format '{{.Size}}' "$image" | awk '{ printf "%d MB", $1 / 1000000 }'))"
  echo "$image"
}

main "$@"
