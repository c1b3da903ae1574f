#!/usr/bin/env bash
# Installs the system packages the test suites use, from Debian's archive: bubblewrap (process
# sandboxes run under it; its isolation tests fail without it when CI=true), python3-seccomp
# (libseccomp's binding, which compiles their seccomp filter), jq (the README's walkthrough, run by
# tooling/e2e), iproute2 (tooling/docker/docker-hosts-up.sh; a process sandbox's network
# namespace and its veth pair), passt (pasta: the fallback data path of a sandbox's egress and the
# forward to its agent server, tested beside veth), nftables (a sandbox's egress enforcer and the
# host's rules for veth pairs) and util-linux's nsenter (bwrap starts inside the namespace); the
# network tests fail without them when CI=true. Idempotent; needs root on a
# machine that lacks them.
set -euo pipefail

log() { printf '[install-deps] %s\n' "$*" >&2; }

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
# The runtime runs /usr/bin/python3 (Debian's, not a pyenv or venv one that lacks the binding).
/usr/bin/python3 -c 'import seccomp' >/dev/null 2>&1 || missing+=(python3-seccomp)
command -v jq >/dev/null 2>&1 || missing+=(jq)
# ip: the several-Docker-hosts suite puts each test host in a network namespace of its own.
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v pasta >/dev/null 2>&1 || missing+=(passt)
command -v nft >/dev/null 2>&1 || missing+=(nftables)
command -v nsenter >/dev/null 2>&1 || missing+=(util-linux)

if [ ${#missing[@]} -eq 0 ]; then
  log "everything is installed (bwrap $(bwrap --version | awk '{print $2}'))."
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  log "missing ${missing[*]} and this is not root: install them yourself (apt-get install ${missing[*]})."
  exit 1
fi
log "installing ${missing[*]} from the Debian archive..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
log "installed ${missing[*]}."
