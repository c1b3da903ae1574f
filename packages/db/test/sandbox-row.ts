import { DEFAULT_SANDBOX_EGRESS } from "@sandbox-server/egress";
import type { NewSandbox } from "../src/port/rows";

/** A RUNNING sandbox of `usr_a` with no lifetime policy; `extra` overrides any column. */
export function newSandbox(id: string, extra: Partial<NewSandbox> = {}): NewSandbox {
  return {
    id,
    ownerId: "usr_a",
    specId: "default",
    runtime: "process",
    status: "RUNNING",
    statusDetail: null,
    sessionApiKey: `key-${id}`,
    agentServerUrl: null,
    labels: {},
    env: {},
    network: DEFAULT_SANDBOX_EGRESS,
    lastActivityAt: null,
    createdAt: 1,
    updatedAt: 1,
    ...extra,
  };
}
