/**
 * Container labels are the docker runtime's only record: with them a restarted control plane finds
 * every sandbox container (and orphans) without any state of its own.
 */

export const LABEL_PREFIX = "sandbox-server.";
/** Its value names the control-plane instance that owns the container (see `instance`). */
export const MANAGED_LABEL = "sandbox-server.managed";
export const SANDBOX_ID_LABEL = "sandbox-server.sandbox-id";
export const OWNER_LABEL = "sandbox-server.owner";
export const SPEC_LABEL = "sandbox-server.spec";
/** User labels live under their own prefix so they can never overwrite the runtime's. */
export const USER_LABEL_PREFIX = "sandbox-server.label.";

export interface SandboxIdentity {
  sandboxId: string;
  ownerId: string;
  specId: string;
  labels?: Record<string, string>;
}

export function toContainerLabels(
  identity: SandboxIdentity,
  instance: string,
): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(identity.labels ?? {})) {
    labels[`${USER_LABEL_PREFIX}${key}`] = value;
  }
  labels[MANAGED_LABEL] = instance;
  labels[SANDBOX_ID_LABEL] = identity.sandboxId;
  labels[OWNER_LABEL] = identity.ownerId;
  labels[SPEC_LABEL] = identity.specId;
  return labels;
}

/** The user labels given at start, with the prefix taken off again. */
export function readUserLabels(containerLabels: Record<string, string>): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(containerLabels)) {
    if (key.startsWith(USER_LABEL_PREFIX)) labels[key.slice(USER_LABEL_PREFIX.length)] = value;
  }
  return labels;
}

export function containerNameFor(sandboxId: string): string {
  return `sandbox-server-${sandboxId}`;
}

/** Docker container names allow [a-zA-Z0-9][a-zA-Z0-9_.-]; refuse anything else early. */
export function assertValidSandboxId(sandboxId: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(sandboxId)) {
    throw new Error(`invalid sandbox id ${JSON.stringify(sandboxId)}: use [A-Za-z0-9_.-]`);
  }
}
