#!/usr/bin/env bash
# Smoke test of the control-plane image, run the way README.md documents it: host network, the
# host's Docker socket, a data volume, the docker runtime. Waits for /health, creates a sandbox
# with the admin key from the container's DATA_DIR, waits for RUNNING, checks its agent server
# answers, deletes it, stops the control plane (SIGTERM) and removes everything it created: the
# container, the data volume, and — should a step fail — the sandbox containers, the sandbox
# network and its host firewall rules. Exits non-zero on the first failed step.
#
# Needs: sandbox-server/server:latest (tooling/image/build-server-image.sh) and the sandbox image
# sandbox-server/agent-server:latest (npm run image), a local Docker daemon (unix socket).
#
# Environment (all optional):
#   IMAGE          control-plane image (default sandbox-server/server:latest)
#   SANDBOX_IMAGE  sandbox image (default sandbox-server/agent-server:latest)
#   SMOKE_TIMEOUT  seconds allowed for each wait (default 90)
set -euo pipefail

IMAGE="${IMAGE:-sandbox-server/server:latest}"
# Keep equal to DEFAULT_SANDBOX_IMAGE (packages/runtime/src/docker/options.ts).
SANDBOX_IMAGE="${SANDBOX_IMAGE:-sandbox-server/agent-server:latest}"
TIMEOUT="${SMOKE_TIMEOUT:-90}"
FIREWALL_COMMENT="sandbox-server: sandboxes must not reach the host"

log() { printf '[smoke-server-image] %s\n' "$*" >&2; }
fail() {
  log "FAILED: $*"
  exit 1
}
image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# Set as the run goes; cleanup uses whatever is known.
NAME=""
VOLUME=""
INSTANCE=""
KEY=""
BASE_URL=""
SUCCEEDED=0

# One API call: prints "<status> <body>" (status 000 when there was no answer). The key travels in
# the environment, not on a command line.
api() {
  # shellcheck disable=SC2016 # JavaScript template literals, not shell expansions
  SMOKE_KEY="$KEY" node -e '
    const [method, url, body] = process.argv.slice(1);
    const headers = { authorization: `Bearer ${process.env.SMOKE_KEY}` };
    if (body) headers["content-type"] = "application/json";
    fetch(url, { method, headers, body: body || undefined, signal: AbortSignal.timeout(15000) })
      .then(async (res) => process.stdout.write(`${res.status} ${await res.text()}`))
      .catch((error) => process.stdout.write(`000 ${error.message}`));
  ' "$1" "$BASE_URL$2" "${3:-}"
}

# Reads one field of the JSON document on stdin (empty when absent).
json_field() {
  node -e '
    let text = "";
    process.stdin.on("data", (chunk) => { text += chunk; });
    process.stdin.on("end", () => {
      try {
        const value = JSON.parse(text)[process.argv[1]];
        process.stdout.write(value === undefined || value === null ? "" : String(value));
      } catch {}
    });
  ' "$1"
}

free_port() {
  node -e '
    const server = require("node:net").createServer();
    server.listen(0, "127.0.0.1", () => { console.log(server.address().port); server.close(); });
  '
}

container_running() {
  [ "$(docker inspect -f '{{.State.Running}}' "$NAME" 2>/dev/null || echo false)" = "true" ]
}

# The sandbox network's bridge interface (empty when the network does not exist).
bridge_of() {
  docker network inspect -f '{{index .Options "com.docker.network.bridge.name"}}' "$1" \
    2>/dev/null || true
}

remove_firewall_rules() {
  local bridge="$1" chain spec
  [ -n "$bridge" ] && [ "$(id -u)" -eq 0 ] && command -v iptables >/dev/null 2>&1 || return 0
  for chain in INPUT DOCKER-USER; do
    iptables -S "$chain" 2>/dev/null | grep -F -- "-i $bridge " | grep -F "$FIREWALL_COMMENT" |
      sed -e 's/^-A /-D /' | while read -r spec; do
        eval "iptables -w 5 $spec" || true
      done
  done
}

cleanup() {
  local status=$?
  set +e
  if [ "$SUCCEEDED" != "1" ] && [ -n "$NAME" ] && docker inspect "$NAME" >/dev/null 2>&1; then
    log "control-plane logs (last 40 lines):"
    docker logs --tail 40 "$NAME" >&2 2>&1
  fi
  if [ -z "$INSTANCE" ] && [ -n "$VOLUME" ] && docker volume inspect "$VOLUME" >/dev/null 2>&1; then
    INSTANCE="$(docker run --rm --network none -v "$VOLUME:/data:ro" --entrypoint cat "$IMAGE" \
      /data/instance-id 2>/dev/null | tr -d '[:space:]')"
  fi
  [ -n "$NAME" ] && docker rm -f "$NAME" >/dev/null 2>&1
  if [ -n "$INSTANCE" ]; then
    local leftovers network bridge
    leftovers="$(docker ps -aq --filter "label=sandbox-server.managed=$INSTANCE")"
    if [ -n "$leftovers" ]; then
      log "removing sandbox containers left behind: $(echo "$leftovers" | tr '\n' ' ')"
      # shellcheck disable=SC2086 # one id per word
      docker rm -f $leftovers >/dev/null 2>&1
    fi
    network="sandbox-server-$INSTANCE"
    bridge="$(bridge_of "$network")"
    if [ -n "$bridge" ]; then
      log "removing the sandbox network $network left behind (and its firewall rules)"
      docker network rm "$network" >/dev/null 2>&1
      remove_firewall_rules "$bridge"
    fi
  fi
  [ -n "$VOLUME" ] && docker volume rm -f "$VOLUME" >/dev/null 2>&1
  if [ "$SUCCEEDED" = "1" ]; then
    log "passed; nothing left behind"
  elif [ "$status" -eq 0 ]; then
    status=1
  fi
  exit "$status"
}

wait_for_health() {
  local deadline=$((SECONDS + TIMEOUT)) answer
  while [ "$SECONDS" -lt "$deadline" ]; do
    container_running || fail "the control-plane container stopped before answering /health"
    answer="$(api GET /health)"
    [ "${answer%% *}" = "200" ] && return 0
    sleep 1
  done
  fail "/health did not answer 200 within ${TIMEOUT}s (last: $answer)"
}

# Polls the sandbox until it is RUNNING; echoes its JSON.
wait_for_running() {
  local id="$1" deadline=$((SECONDS + TIMEOUT)) answer body status
  while [ "$SECONDS" -lt "$deadline" ]; do
    answer="$(api GET "/api/v1/sandboxes/$id")"
    body="${answer#* }"
    [ "${answer%% *}" = "200" ] || fail "GET /api/v1/sandboxes/$id answered $answer"
    status="$(json_field status <<<"$body")"
    case "$status" in
      RUNNING)
        echo "$body"
        return 0
        ;;
      ERROR) fail "sandbox $id went to ERROR: $(json_field status_detail <<<"$body")" ;;
    esac
    sleep 1
  done
  fail "sandbox $id was not RUNNING within ${TIMEOUT}s (last status: ${status:-unknown})"
}

wait_for_gone() {
  local id="$1" deadline=$((SECONDS + TIMEOUT)) answer
  while [ "$SECONDS" -lt "$deadline" ]; do
    answer="$(api GET "/api/v1/sandboxes/$id")"
    [ "${answer%% *}" = "404" ] && return 0
    sleep 1
  done
  fail "sandbox $id still exists ${TIMEOUT}s after its delete (last: $answer)"
}

# How the container reaches the daemon: the host's unix socket, mounted at the default path.
docker_socket() {
  local host="${DOCKER_HOST:-}"
  case "$host" in
    "") echo /var/run/docker.sock ;;
    unix://*) echo "${host#unix://}" ;;
    *) fail "this smoke test mounts a local unix socket; DOCKER_HOST=$host is not one" ;;
  esac
}

main() {
  command -v docker >/dev/null 2>&1 || fail "docker CLI not found"
  docker info >/dev/null 2>&1 || fail "no Docker daemon answers"
  image_exists "$IMAGE" || fail "$IMAGE is missing: run tooling/image/build-server-image.sh"
  image_exists "$SANDBOX_IMAGE" || fail "$SANDBOX_IMAGE is missing: run npm run image"
  # Process-runtime sandboxes in this image start from the agent-server bundle's code cache.
  local cache
  cache="$(docker run --rm --network none "$IMAGE" node /app/apps/agent-server/dist/agent-server.js --code-cache-status)"
  [ "$cache" = "used" ] || fail "the agent-server code cache in $IMAGE is $cache, not used"
  local socket
  socket="$(docker_socket)"
  [ -S "$socket" ] || fail "$socket is not a socket"

  local suffix port
  suffix="$(node -p 'require("node:crypto").randomBytes(4).toString("hex")')"
  trap cleanup EXIT
  NAME="sandbox-server-smoke-$suffix"
  VOLUME="$NAME-data"
  port="$(free_port)"
  BASE_URL="http://127.0.0.1:$port"

  log "starting $IMAGE as $NAME (host network, port $port, data in volume $VOLUME)..."
  docker volume create --label sandbox-server.smoke=1 "$VOLUME" >/dev/null
  docker run -d --name "$NAME" --init --network host --cap-add NET_ADMIN \
    -v "$socket:/var/run/docker.sock" -v "$VOLUME:/data" \
    -e PORT="$port" -e SANDBOX_RUNTIME=docker -e SANDBOX_IMAGE="$SANDBOX_IMAGE" \
    "$IMAGE" >/dev/null
  wait_for_health
  log "/health answers at $BASE_URL"
  # Logs read whole first: `docker logs | grep -q` under pipefail fails when grep stops early.
  grep -qF "events are followed and stored on the ingest worker's thread" <<<"$(docker logs "$NAME" 2>&1)" ||
    fail "the image's control plane does not follow events on its ingest worker (dist/event-worker.js)"

  KEY="$(docker exec "$NAME" cat /data/admin-api-key)"
  [ -n "$KEY" ] || fail "no admin key in the container's /data/admin-api-key"
  INSTANCE="$(docker exec "$NAME" cat /data/instance-id | tr -d '[:space:]')"
  [ -n "$INSTANCE" ] || fail "no instance id in the container's /data/instance-id"
  local network="sandbox-server-$INSTANCE"

  local answer id sandbox agent_url
  answer="$(api POST /api/v1/sandboxes '{"labels":{"purpose":"smoke"}}')"
  [ "${answer%% *}" = "201" ] || fail "POST /api/v1/sandboxes answered $answer"
  id="$(json_field id <<<"${answer#* }")"
  [ -n "$id" ] || fail "POST /api/v1/sandboxes returned no id: ${answer#* }"
  log "created sandbox $id; waiting for RUNNING..."
  sandbox="$(wait_for_running "$id")"
  agent_url="$(json_field agent_server_url <<<"$sandbox")"
  log "sandbox $id is RUNNING, its agent server at $agent_url"
  node -e 'fetch(process.argv[1] + "/health").then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' \
    "$agent_url" || fail "the sandbox's agent server at $agent_url does not answer /health from the host"
  [ -n "$(docker ps -q --filter "label=sandbox-server.managed=$INSTANCE")" ] ||
    fail "no running container labelled sandbox-server.managed=$INSTANCE"

  # The image carries iptables; with NET_ADMIN on the host network the control plane protects the
  # host from the sandbox network itself, and warns when it cannot.
  if docker run --rm --network none --entrypoint sh "$IMAGE" -c 'command -v iptables' >/dev/null; then
    if grep -qF "can reach services listening on the host's addresses" <<<"$(docker logs "$NAME" 2>&1)"; then
      fail "the control plane could not add the host firewall rules for $network"
    fi
    log "host firewall rules for $network were added from inside the container"
  else
    log "warning: $IMAGE has no iptables; the host firewall rules were not checked"
  fi

  answer="$(api DELETE "/api/v1/sandboxes/$id")"
  [ "${answer%% *}" = "200" ] || fail "DELETE /api/v1/sandboxes/$id answered $answer"
  wait_for_gone "$id"
  [ -z "$(docker ps -aq --filter "label=sandbox-server.managed=$INSTANCE")" ] ||
    fail "a container labelled sandbox-server.managed=$INSTANCE is still there after the delete"
  log "sandbox $id deleted"

  log "stopping the control plane (SIGTERM)..."
  docker stop -t 30 "$NAME" >/dev/null
  local code
  code="$(docker inspect -f '{{.State.ExitCode}}' "$NAME")"
  [ "$code" = "0" ] || fail "the control plane exited with code $code on SIGTERM"
  # With no sandbox left, the control plane removes its network (and firewall rules) on shutdown.
  [ -z "$(bridge_of "$network")" ] || fail "the sandbox network $network is still there"
  SUCCEEDED=1
}

main "$@"
