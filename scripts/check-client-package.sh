#!/usr/bin/env bash
# Checks @sandbox-server/client as a user outside this repository gets it: builds and packs it,
# installs the tarball into a fresh project in a temporary directory (its peers @trpc/client and
# @trpc/server come from the registry), type-checks a program against it with
# moduleResolution NodeNext and Bundler, asserts that a deliberate type error IS reported (so the
# router's types are real, not `any`), then runs the program's typed calls against a live server.
#
#   scripts/check-client-package.sh [SERVER_URL]     (or SANDBOX_SERVER_URL)
#   SANDBOX_API_KEY: a key for that server (default: $DATA_DIR/admin-api-key, else ./.data/admin-api-key)
#   --types-only: pack, install and type-check, without the live call
#   KEEP_CHECK_DIR=1 keeps the temporary project for a look afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

log() { printf '[check-client-package] %s\n' "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

live=1
url="${SANDBOX_SERVER_URL:-}"
for arg in "$@"; do
  case "$arg" in
    --types-only) live=0 ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    *) url="$arg" ;;
  esac
done
if [ "$live" -eq 1 ]; then
  [ -n "$url" ] || fail "no server URL: pass it as an argument or set SANDBOX_SERVER_URL (or use --types-only)"
  api_key="${SANDBOX_API_KEY:-}"
  if [ -z "$api_key" ]; then
    key_file="${DATA_DIR:-.data}/admin-api-key"
    [ -r "$key_file" ] || fail "no API key: set SANDBOX_API_KEY (no readable $key_file)"
    api_key=$(tr -d '[:space:]' <"$key_file")
  fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/client-check.XXXXXX")
cleanup() {
  if [ "${KEEP_CHECK_DIR:-0}" = 1 ]; then log "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

log "building @sandbox-server/client"
npm run build --silent -w @sandbox-server/client >&2

log "packing"
tarball=$(npm pack --silent -w @sandbox-server/client --pack-destination "$work" | tail -n 1)
tarball="$work/$tarball"
[ -f "$tarball" ] || fail "npm pack produced no tarball"
contents=$(tar -tzf "$tarball")
for file in package/package.json package/dist/index.js package/dist/index.d.ts package/README.md; do
  grep -qx "$file" <<<"$contents" || fail "$file is missing from the tarball"
done
if grep -q '^package/src/' <<<"$contents"; then fail "the tarball ships sources"; fi
tar -xzOf "$tarball" package/package.json | node -e '
  const pkg = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const problems = [];
  if (pkg.private) problems.push("it is private");
  if (!pkg.license) problems.push("it has no license");
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const name of Object.keys(pkg[field] ?? {})) {
      if (name.startsWith("@sandbox-server/")) problems.push(`${field} names ${name}`);
    }
  }
  if (problems.length) { console.error(problems.join("; ")); process.exit(1); }
' || fail "package.json of the tarball is not publishable"
# Read whole first: under pipefail a `grep -q` that stops early fails the pipeline, hiding a match.
if grep -qF '@sandbox-server/' <<<"$(tar -xzOf "$tarball" package/dist/index.d.ts)"; then
  fail "dist/index.d.ts refers to a private @sandbox-server package"
fi
log "packed $(basename "$tarball") ($(du -h "$tarball" | cut -f1))"

project="$work/project"
mkdir -p "$project/src"
cd "$project"
cat >package.json <<'JSON'
{ "name": "client-check", "version": "0.0.0", "private": true, "type": "module" }
JSON
typescript_version=$(node -p "require('$root/node_modules/typescript/package.json').version")
log "installing the tarball, typescript@$typescript_version and @types/node@20 (peers from the registry)"
npm install --no-audit --no-fund --loglevel=error "$tarball" "typescript@$typescript_version" "@types/node@20" >&2
node -e 'require.resolve("@trpc/client/package.json"); require.resolve("@trpc/server/package.json")' \
  || fail "the peers @trpc/client and @trpc/server were not installed"

# A user's program: typed calls through tRPC and REST, and compile-time checks of the types.
cat >src/check.ts <<'TS'
import {
  type AppRouter,
  createRestClient,
  createSandboxClient,
  describeClientError,
  type RouterInputs,
  type RouterOutputs,
  type Sandbox,
  waitForSandboxStatus,
} from "@sandbox-server/client";

type IsAny<T> = 0 extends 1 & T ? true : false;
export const routerIsTyped: IsAny<AppRouter> = false;
export const outputIsTyped: IsAny<RouterOutputs["sandboxes"]["get"]> = false;
export const statusIsExact: RouterOutputs["sandboxes"]["get"]["status"] extends
  | "STARTING"
  | "RUNNING"
  | "PAUSED"
  | "STOPPING"
  | "ERROR"
  ? true
  : false = true;
export const input: RouterInputs["sandboxes"]["start"] = { labels: { check: "client-package" } };

const url = process.env.SANDBOX_SERVER_URL ?? "";
const apiKey = process.env.SANDBOX_API_KEY ?? "";
const client = createSandboxClient({ url, apiKey });

async function main() {
  const started: Sandbox = await client.sandboxes.start.mutate(input);
  const running = await waitForSandboxStatus(client, started.id, "RUNNING", { timeoutMs: 60_000 });
  const conversation = await client.conversations.create.mutate({
    sandbox_id: running.id,
    initial_message: { content: [{ type: "text", text: "echo typed-call" }], run: true },
  });
  const rest = createRestClient({ url, apiKey });
  const read = await rest.GET("/api/v1/app-conversations/{id}", {
    params: { path: { id: conversation.id } },
  });
  if (read.data?.sandbox_id !== running.id) throw new Error("REST read does not match");
  await client.sandboxes.delete.mutate({ id: running.id });
  const gone = await client.sandboxes.get.query({ id: running.id }).catch((e: unknown) => e);
  if (describeClientError(gone).code !== "SANDBOX_NOT_FOUND") throw new Error("expected 404");
  console.log(`typed calls ok: sandbox ${running.id} ${running.status}, conversation ${conversation.id}`);
}

main().catch((error: unknown) => {
  console.error(describeClientError(error));
  process.exit(1);
});
TS
# Must NOT compile: sandbox_spec_id is a string.
cat >src/deliberate-error.ts <<'TS'
import { createSandboxClient } from "@sandbox-server/client";

const client = createSandboxClient({ url: "http://127.0.0.1:3000", apiKey: "ssk_x" });
export const wrong = client.sandboxes.start.mutate({ sandbox_spec_id: 42 });
TS

# skipLibCheck is off so the package's own declarations are checked too; "DOM" because
# @trpc/client's declarations name DOM types (RequestInfo) that @types/node does not declare.
write_tsconfig() { # mode module moduleResolution
  cat >"tsconfig.$1.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2022", "DOM"],
    "module": "$2",
    "moduleResolution": "$3",
    "types": ["node"],
    "strict": true,
    "skipLibCheck": false,
    "outDir": "dist"
  },
  "files": ["src/check.ts"]
}
JSON
  cat >"tsconfig.$1.error.json" <<JSON
{ "extends": "./tsconfig.$1.json", "compilerOptions": { "noEmit": true }, "files": ["src/deliberate-error.ts"] }
JSON
}
write_tsconfig nodenext NodeNext NodeNext
write_tsconfig bundler ESNext Bundler

tsc="node_modules/.bin/tsc"
for mode in nodenext bundler; do
  log "type-checking with moduleResolution $mode"
  if [ "$mode" = nodenext ]; then emit=(); else emit=(--noEmit); fi
  "$tsc" -p "tsconfig.$mode.json" "${emit[@]}" >&2 \
    || fail "the program does not type-check with moduleResolution $mode"
  log "asserting that the deliberate error is reported ($mode)"
  set +e
  output=$("$tsc" -p "tsconfig.$mode.error.json" 2>&1)
  status=$?
  set -e
  [ "$status" -ne 0 ] || fail "tsc accepted a number as sandbox_spec_id ($mode): the router's types are not there"
  grep -q "src/deliberate-error.ts(4,.*Type 'number' is not assignable to type 'string'" <<<"$output" \
    || fail "tsc failed for another reason than the deliberate error ($mode): $output"
done

if [ "$live" -eq 0 ]; then
  log "OK (types only; no live call)"
  exit 0
fi
log "running the typed calls against $url"
SANDBOX_SERVER_URL="$url" SANDBOX_API_KEY="$api_key" node dist/check.js || fail "the typed calls failed"
log "OK"
