import type { SandboxSpecRow } from "@sandbox-server/db";
import { z } from "zod";
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
    created_at: Timestamp,
  })
  .meta({ id: "SandboxSpec" });

export const SandboxSpecPage = pageOf(SandboxSpec, "SandboxSpecPage");
export const SearchSandboxSpecsInput = z.object({ ...pageInput });

export function toSandboxSpec(row: SandboxSpecRow): z.infer<typeof SandboxSpec> {
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
    created_at: iso(row.createdAt),
  };
}
