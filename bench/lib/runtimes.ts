import { type ControlPlane, removeDataDir, startControlPlane } from "./control-plane";
import { instanceId, removeManagedContainers } from "./docker";
import type { BenchContext } from "./figure";
import { deleteAll } from "./sandboxes";

export type RuntimeKind = "process" | "docker";
export const RUNTIMES: RuntimeKind[] = ["process", "docker"];

/**
 * Runs `measure` against a control plane of each runtime; Docker's entry is the skip reason when
 * no daemon answers or the image is missing, or the error when Docker was there but failed.
 */
export async function perRuntime<T>(
  ctx: BenchContext,
  env: Record<string, string>,
  measure: (cp: ControlPlane, runtime: RuntimeKind) => Promise<T>,
): Promise<Record<RuntimeKind, T | { skipped: string } | { failed: string }>> {
  const out = {} as Record<RuntimeKind, T | { skipped: string } | { failed: string }>;
  for (const runtime of RUNTIMES) {
    if (runtime === "docker" && ctx.dockerSkip) {
      out[runtime] = { skipped: ctx.dockerSkip };
      continue;
    }
    let cp: ControlPlane | null = null;
    try {
      cp = await startControlPlane({ runtime, env });
      out[runtime] = await measure(cp, runtime);
    } catch (error) {
      if (runtime === "process") throw error;
      out[runtime] = {
        failed: error instanceof Error ? error.message.slice(0, 500) : String(error),
      };
      ctx.log(`docker: ${JSON.stringify(out[runtime])}`);
    } finally {
      if (cp) {
        await deleteAll(cp).catch(() => undefined);
        await cp.stop();
        // Whatever the server left on the daemon (e.g. a warm pool's containers) goes too.
        const instance = runtime === "docker" ? instanceId(cp.dataDir) : null;
        if (instance) await removeManagedContainers(instance);
        removeDataDir(cp.dataDir);
      }
    }
  }
  return out;
}

/** The p50 of a runtime's summary, or null when it was skipped or failed. */
export function medianOf(entry: unknown, field: string): number | null {
  const value = (entry as Record<string, { median?: number }> | undefined)?.[field]?.median;
  return typeof value === "number" ? value : null;
}
