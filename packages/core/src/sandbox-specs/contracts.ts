import type { SandboxSpecRow } from "@sandbox-server/db";
import type { IsolationLevel } from "@sandbox-server/runtime";
import { z } from "zod";
import { lifetimeInput } from "../sandboxes/lifetime/contracts";
import { SandboxNetwork } from "../sandboxes/network-contracts";
import { specEgressPolicy, toSandboxNetwork } from "../sandboxes/service/egress-policy";
import { pageInput, pageOf, Timestamp } from "../shared/contracts";
import { iso } from "../shared/time";

export const SandboxSpec = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    runtime: z.enum(["any", "process", "docker"]),
    image: z.string().nullable(),
    command: z.array(z.string()).nullable(),
    working_dir: z.string().nullable(),
    initial_env: z.record(z.string(), z.string()),
    cpu: z.number().nullable(),
    memory_mb: z.number().int().nullable(),
    pids: z.number().int().nullable(),
    isolation: z
      .enum(["none", "namespaces", "container"])
      .nullable()
      .describe(
        "How this server isolates sandboxes of the spec: container (Docker), namespaces (bubblewrap) or none (plain processes: for one person and their own agents). Null when this server cannot run the spec.",
      ),
    network: SandboxNetwork.describe(
      "The egress policy of the spec's sandboxes, unless a create sets its own",
    ),
    created_at: Timestamp,
    lifetime: z
      .object(lifetimeInput)
      .nullable()
      .describe(
        "Lifetime defaults of its sandboxes (a create's own fields win); absent fields and null: this server's defaults",
      ),
  })
  .meta({ id: "SandboxSpec" });

export const SandboxSpecPage = pageOf(SandboxSpec, "SandboxSpecPage");
export const SearchSandboxSpecsInput = z.object({ ...pageInput });

/** The spec as shown by a server whose runtime is `runtime` (its kind and isolation). */
export function toSandboxSpec(
  row: SandboxSpecRow,
  runtime: { kind: string; isolation: IsolationLevel },
): z.infer<typeof SandboxSpec> {
  const runnable = row.runtime === "any" || row.runtime === runtime.kind;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    runtime: row.runtime as "any" | "process" | "docker",
    image: row.image,
    command: row.command,
    working_dir: row.workingDir,
    // Spec env may carry settings, never show values that look secret.
    initial_env: Object.fromEntries(Object.keys(row.initialEnv).map((k) => [k, "***"])),
    cpu: row.cpu,
    memory_mb: row.memoryMb,
    pids: row.pids,
    isolation: runnable ? runtime.isolation : null,
    network: toSandboxNetwork(specEgressPolicy(row)),
    created_at: iso(row.createdAt),
    lifetime: row.lifetime,
  };
}
