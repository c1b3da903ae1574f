import type { SandboxRow } from "@sandbox-server/db";
import { z } from "zod";
import type { CoreDeps } from "../deps";
import { EnvVars, Labels, pageInput, pageOf, Timestamp } from "../shared/contracts";
import { iso } from "../shared/time";
import { lifetimeInput, SandboxLifetime, toLifetimeFields } from "./lifetime/contracts";
import { SandboxNetwork, SandboxNetworkInput } from "./network-contracts";
import { portAccessInput } from "./ports/contracts";
import { declaredPortUrls } from "./ports/declared-urls";
import { toSandboxNetwork } from "./service/egress-policy";

export const sandboxStatuses = ["STARTING", "RUNNING", "PAUSED", "STOPPING", "ERROR"] as const;
export const SandboxStatus = z.enum(sandboxStatuses).meta({ id: "SandboxStatus" });
export type SandboxStatus = z.infer<typeof SandboxStatus>;

export const ExposedUrl = z
  .object({
    name: z
      .string()
      .describe(
        "`AGENT_SERVER` (the agent server's base URL), then the ports declared at create under their names, each with a signed URL working for an hour from this read",
      ),
    url: z.string(),
    port: z.number().int().min(1).max(65535),
  })
  .meta({ id: "ExposedUrl" });

export const Sandbox = z
  .object({
    id: z.string(),
    status: SandboxStatus,
    sandbox_spec_id: z.string(),
    created_by_user_id: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
    agent_server_url: z.string().nullable().describe("Only while RUNNING"),
    session_api_key: z.string().nullable().describe("Only to the owner, only while RUNNING"),
    exposed_urls: z.array(ExposedUrl),
    status_detail: z.string().nullable(),
    labels: z.record(z.string(), z.string()),
    network: SandboxNetwork.describe("The egress policy in force"),
    expires_at: z
      .string()
      .nullable()
      .describe(
        "When `timeout_s` of active time is reached; null while PAUSED or without a timeout",
      ),
    active_time_s: z
      .number()
      .int()
      .describe("Time it has been active (any status but PAUSED), in whole seconds"),
    lifetime: SandboxLifetime,
    auto_resume: z.boolean().describe("Opening a port URL while PAUSED resumes it"),
  })
  .meta({ id: "Sandbox" });
export type Sandbox = z.infer<typeof Sandbox>;

export const SandboxPage = pageOf(Sandbox, "SandboxPage");

export const SandboxId = z.string().min(1).max(64).describe("Sandbox id");

export const SearchSandboxesInput = z.object({
  ...pageInput,
  status: SandboxStatus.optional(),
  sandbox_spec_id: z.string().min(1).max(64).optional(),
  label: z.string().min(1).max(320).optional().describe("`key` or `key=value`"),
});

export const StartSandboxInput = z.object({
  sandbox_spec_id: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe("In the body or the query (`POST /sandboxes?sandbox_spec_id=`)"),
  labels: Labels.optional(),
  env: EnvVars.optional(),
  network: SandboxNetworkInput.optional().describe(
    "What the sandbox may connect to; fields absent here come from the spec's default (every public destination, no private one)",
  ),
  ...lifetimeInput,
  ...portAccessInput,
});
export type StartSandboxInput = z.infer<typeof StartSandboxInput>;

export const SandboxIdInput = z.object({ id: SandboxId });

/** At most this many ids in one batch read. */
export const MAX_BATCH_SANDBOXES = 100;

/** `id=a&id=b` (a single `id=a` arrives as a string): the ids of a batch read. */
export const BatchSandboxesInput = z.object({
  id: z
    .preprocess(
      (value) => (typeof value === "string" ? [value] : value),
      z
        .array(SandboxId)
        .min(1, "at least one id")
        .max(MAX_BATCH_SANDBOXES, `at most ${MAX_BATCH_SANDBOXES} ids`),
    )
    .describe("Repeat the key: id=a&id=b"),
});

export const SandboxBatch = z.array(Sandbox.nullable()).meta({ id: "SandboxBatch" });

/** OpenHands' SDK sends the id twice (`DELETE /sandboxes/{id}?sandbox_id={id}`). */
export const DeleteSandboxInput = z.object({
  id: SandboxId,
  sandbox_id: SandboxId.optional().describe("If given, must equal the path id"),
});

export const DeleteSandboxByQueryInput = z.object({ sandbox_id: SandboxId });

export const DeleteSandboxOutput = z.object({ success: z.boolean(), id: z.string() });

/** Renders a row for its owner (the only viewer a sandbox ever has), at `deps.now()`. */
export function toSandbox(row: SandboxRow, deps: Pick<CoreDeps, "now" | "portUrls">): Sandbox {
  const now = deps.now();
  const running = row.status === "RUNNING" && row.agentServerUrl !== null;
  const url = running ? row.agentServerUrl : null;
  return {
    id: row.id,
    status: row.status as SandboxStatus,
    sandbox_spec_id: row.specId,
    created_by_user_id: row.ownerId,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    agent_server_url: url,
    session_api_key: running ? row.sessionApiKey : null,
    exposed_urls: url
      ? [{ name: "AGENT_SERVER", url, port: portOf(url) }, ...declaredPortUrls(deps, row)]
      : [],
    status_detail: row.statusDetail,
    labels: row.labels,
    network: toSandboxNetwork(row.network),
    ...toLifetimeFields(row, now),
    auto_resume: row.portAccess.autoResume,
  };
}

/** The port an exposed URL listens on, the scheme's default when the URL names none. */
function portOf(url: string): number {
  const parsed = new URL(url);
  if (parsed.port !== "") return Number(parsed.port);
  return parsed.protocol === "https:" ? 443 : 80;
}
