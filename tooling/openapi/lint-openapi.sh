#!/usr/bin/env bash
# Lints the OpenAPI document the control plane serves (/api/v1/openapi.json), built offline from
# the procedures (tooling/openapi/openapi-document.ts), with Spectral (.spectral.yaml: spectral:oas) and
# Redocly (redocly.yaml: recommended). Fails on any error or warning of either.
set -euo pipefail
cd "$(dirname "$0")/../.."

# No telemetry or update checks: CI reaches only the package registries.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

log() { printf '[lint-openapi] %s\n' "$*" >&2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
doc="$tmp/openapi.json"

npx --no-install tsx tooling/openapi/openapi-document.ts "$doc"
log "document: $(wc -c <"$doc") bytes"

status=0
log "spectral (.spectral.yaml)"
npx --no-install spectral lint --ruleset .spectral.yaml --fail-severity warn "$doc" || status=1
log "redocly (redocly.yaml)"
# --max-problems high enough that nothing is hidden; warnings fail too.
npx --no-install redocly lint --config redocly.yaml --max-problems 1000 --format stylish "$doc" \
  >"$tmp/redocly.txt" 2>&1 || status=1
grep -v -e '[╔║╚]' "$tmp/redocly.txt" | sed '/^[[:space:]]*$/d' >&2 || true
if grep -Eq '^[[:space:]]+[0-9]+:[0-9]+[[:space:]]+(error|warning)' "$tmp/redocly.txt"; then status=1; fi

if [ "$status" -ne 0 ]; then
  log "FAILED: the OpenAPI document has lint errors or warnings (see above)"
  exit 1
fi
log "0 errors, 0 warnings"
