/**
 * What a sandbox under bubblewrap sees, chosen to match the Docker image (apps/agent-server/
 * Dockerfile), so that an agent finds the same paths and user under both runtimes.
 */
export const INSIDE = {
  workspace: "/workspace",
  home: "/home/agent",
  agentData: "/home/agent/.agent-server",
  agentServerDir: "/opt/agent-server",
  agentServerEntry: "/opt/agent-server/agent-server.js",
  /** The bundle's V8 code cache (optional: without it the bundle compiles as usual). */
  agentServerCodeCache: "/opt/agent-server/agent-server.cache",
} as const;

/** Where the bundle at `entry` keeps its code cache (apps/agent-server/build.mjs). */
export function codeCacheOf(entry: string): string {
  return `${entry.replace(/\.js$/, "")}.cache`;
}

export const SANDBOX_USER = { name: "agent", home: INSIDE.home } as const;

export const SANDBOX_HOSTNAME = "sandbox";

/**
 * The uid (and gid) of the sandbox's processes inside their user namespace: the image's 10001,
 * unless that is the control plane's own uid, which a sandbox must never appear to have.
 */
export function sandboxUidFor(hostUid: number): number {
  return hostUid === 10001 ? 10002 : 10001;
}
