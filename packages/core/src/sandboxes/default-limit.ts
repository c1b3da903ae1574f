const MIB = 1024 * 1024;

/**
 * How many sandboxes may run at once on a host with this much memory: one per ~512 MiB, between 4
 * and 64. The one default: the core's `defaultConfig` and the server's MAX_RUNNING_SANDBOXES both
 * use it (the caller passes `os.totalmem()`).
 */
export function defaultMaxRunningSandboxes(totalMemBytes: number): number {
  return Math.max(4, Math.min(64, Math.floor(totalMemBytes / (512 * MIB))));
}
