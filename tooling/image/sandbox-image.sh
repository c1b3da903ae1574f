# shellcheck shell=bash
# Sourced: SANDBOX_IMAGE_REPO and SANDBOX_IMAGE_DEFAULT (repository:tag) from the one definition of
# the sandbox image's name, packages/runtime/src/docker/sandbox-image.json, which the TypeScript
# DEFAULT_SANDBOX_IMAGE is built from too.
sandbox_image_file="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/packages/runtime/src/docker/sandbox-image.json"
SANDBOX_IMAGE_REPO="$(node -p "require('$sandbox_image_file').repository")"
SANDBOX_IMAGE_DEFAULT="$SANDBOX_IMAGE_REPO:$(node -p "require('$sandbox_image_file').tag")"
unset sandbox_image_file
