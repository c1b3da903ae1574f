#!/usr/bin/env bash
# Loads the sandbox image from this machine's Docker daemon into every host of DOCKER_HOSTS
# (`name=endpoint@address,...`, as the control plane reads it), with `docker save | docker load`,
# so that no host needs a registry. A host that already has the same image id is skipped.
# TLS as the Docker CLI reads it (DOCKER_TLS_VERIFY, DOCKER_CERT_PATH), with DOCKER_CERT_PATH/<name>/
# when that directory exists, as the control plane does.
# Usage: DOCKER_HOSTS=... bash tooling/docker/load-image-to-hosts.sh [image ...]
#   (default: sandbox-server/agent-server:<version> and :latest)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

log() { printf '[load-image] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ -n "${DOCKER_HOSTS:-}" ] || die "DOCKER_HOSTS is not set"
if [ "$#" -gt 0 ]; then
  images=("$@")
else
  # shellcheck source=tooling/image/sandbox-image.sh
  . "$ROOT/tooling/image/sandbox-image.sh"
  repo="${IMAGE_REPO:-$SANDBOX_IMAGE_REPO}"
  version="$(node -p "require('$ROOT/apps/agent-server/package.json').version")"
  images=("$repo:$version" "$repo:latest")
fi
for image in "${images[@]}"; do
  docker image inspect "$image" >/dev/null 2>&1 || die "$image is not on this machine's daemon (npm run image)"
done

IFS=',' read -ra entries <<<"$DOCKER_HOSTS"
for entry in "${entries[@]}"; do
  entry="${entry#"${entry%%[![:space:]]*}"}"
  [ -n "$entry" ] || continue
  name="${entry%%=*}"
  target="${entry#*=}"
  target="${target%%;*}"
  endpoint="$target"
  # The address after the last @ (the ssh user's @ comes before it).
  case "$target" in *://*@*|*@*) endpoint="${target%@*}" ;; esac
  case "$endpoint" in *://*) ;; *) endpoint="tcp://$endpoint" ;; esac
  cert_path="${DOCKER_CERT_PATH:-}"
  [ -n "$cert_path" ] && [ -d "$cert_path/$name" ] && cert_path="$cert_path/$name"
  host_docker() { DOCKER_CERT_PATH="$cert_path" docker -H "$endpoint" "$@"; }
  missing=()
  for image in "${images[@]}"; do
    want="$(docker image inspect -f '{{.Id}}' "$image")"
    have="$(host_docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)"
    [ "$want" = "$have" ] || missing+=("$image")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "$name: has ${images[*]}"
    continue
  fi
  log "$name ($endpoint): loading ${missing[*]}"
  docker save "${images[@]}" | host_docker load >/dev/null
done
