// The V8 options and the environment the control plane runs with: scripts/start.mjs (so `npm start` and
// `sandbox-server start`) and the bench pass them; the server image's CMD (apps/server/Dockerfile)
// spells the same list out, keep it equal.
//
// --max-semi-space-size=1: the young generation's two halves stay at 1 MiB instead of growing to
// 16 MiB each. Loading the bundle and opening the store allocate enough to grow them, and V8 keeps
// the grown size long after, tens of MiB of a control plane at rest. Requests allocate little that
// lives, so the extra scavenges cost little (docs/adr/0028-light-control-plane.md).
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=1"];

// MALLOC_ARENA_MAX=1: glibc gives each thread that allocates (the ingest worker, libuv's pool,
// V8's platform threads) an arena of its own, and pages freed in one stay with it; one arena
// keeps 5-8 MiB less resident at rest. Small allocations still skip the arena's lock (glibc's
// per-thread cache), and the event-stream figure runs with it. A value already set wins.
export const SERVER_ENV = { MALLOC_ARENA_MAX: "1" };
