// The V8 options the control plane runs with: scripts/start.mjs (so `npm start` and
// `sandbox-server start`) and the bench pass them; the server image's CMD (apps/server/Dockerfile)
// spells the same list out, keep it equal.
//
// --max-semi-space-size=1: the young generation's two halves stay at 1 MiB instead of growing to
// 16 MiB each. Loading the bundle and opening the store allocate enough to grow them, and V8 keeps
// the grown size long after, tens of MiB of a control plane at rest. Requests allocate little that
// lives, so the extra scavenges cost little (docs/adr/0028-light-control-plane.md).
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=1"];
