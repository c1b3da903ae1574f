import { createHash } from "node:crypto";
import type Dockerode from "dockerode";
import { describeDockerError, dockerStatusCode, isNotFound } from "./docker-errors";
import { MANAGED_LABEL } from "./labels";

export const ICC_OPTION = "com.docker.network.bridge.enable_icc";
export const BRIDGE_NAME_OPTION = "com.docker.network.bridge.name";

export interface SandboxNetwork {
  id: string;
  name: string;
  /** The host-side bridge interface (what host firewall rules name). */
  bridge: string;
  /** The host's address on the bridge, as containers see it. */
  gateway: string | null;
}

/** One network per control plane: `sandbox-server-<instance>`. */
export function networkNameFor(instance: string): string {
  const name = `sandbox-server-${instance}`;
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,200}$/.test(name)) {
    throw new Error(
      `instance ${JSON.stringify(instance)} cannot name a network: use [A-Za-z0-9_.-]`,
    );
  }
  return name;
}

/**
 * A fixed interface name (at most 15 characters, Linux's limit) so that firewall rules, and an
 * operator reading `ip link`, can name the bridge of a network before and after it is recreated.
 */
export function bridgeNameFor(networkName: string): string {
  return `sbx-${createHash("sha256").update(networkName).digest("hex").slice(0, 10)}`;
}

/**
 * The network's create request: a plain bridge with inter-container traffic off, so no sandbox
 * reaches another's agent server. Not `internal`: that would cut the sandboxes' outbound traffic
 * (LLM endpoints) and, on Docker 20.10, the published port the control plane uses.
 */
export function sandboxNetworkConfig(
  name: string,
  instance: string,
): Dockerode.NetworkCreateOptions {
  return {
    Name: name,
    Driver: "bridge",
    // Docker allows two networks of one name unless asked not to.
    CheckDuplicate: true,
    Internal: false,
    Attachable: false,
    EnableIPv6: false,
    Labels: { [MANAGED_LABEL]: instance },
    Options: { [ICC_OPTION]: "false", [BRIDGE_NAME_OPTION]: bridgeNameFor(name) },
  };
}

/** Creates the network unless it exists; idempotent, also against a concurrent creator. */
export async function ensureSandboxNetwork(
  docker: Dockerode,
  name: string,
  instance: string,
): Promise<SandboxNetwork> {
  const existing = await inspectNetwork(docker, name);
  if (existing !== null) return checkNetwork(existing, instance);
  try {
    await docker.createNetwork(sandboxNetworkConfig(name, instance));
  } catch (error) {
    // 409: someone created it meanwhile; what matters is what it is, checked below.
    if (dockerStatusCode(error) !== 409) {
      throw new Error(
        `sandbox network ${name} could not be created: ${describeDockerError(error)}`,
      );
    }
  }
  const created = await inspectNetwork(docker, name);
  if (created === null)
    throw new Error(`sandbox network ${name} vanished right after its creation`);
  return checkNetwork(created, instance);
}

/**
 * Removes the network when no container (running or stopped: a stopped one could not start
 * again without it) is attached. Resolves with the removed network, or null when it stays.
 */
export async function removeSandboxNetworkIfUnused(
  docker: Dockerode,
  name: string,
  instance: string,
): Promise<SandboxNetwork | null> {
  const info = await inspectNetwork(docker, name);
  if (info === null || info.Labels?.[MANAGED_LABEL] !== instance) return null;
  const users = await docker.listContainers({ all: true, filters: { network: [info.Id] } });
  if (users.length > 0) return null;
  try {
    await docker.getNetwork(info.Id).remove();
  } catch (error) {
    // 404: gone already. Anything else (a container joined meanwhile): it stays.
    if (!isNotFound(error)) return null;
  }
  return describeNetwork(info);
}

/** A create that failed because the network is gone (removed outside, or by a cleanup race). */
export function isMissingNetworkError(error: unknown): boolean {
  return isNotFound(error) && /network .*not found/i.test(describeDockerError(error));
}

async function inspectNetwork(
  docker: Dockerode,
  name: string,
): Promise<Dockerode.NetworkInspectInfo | null> {
  try {
    return (await docker.getNetwork(name).inspect()) as Dockerode.NetworkInspectInfo;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

function checkNetwork(info: Dockerode.NetworkInspectInfo, instance: string): SandboxNetwork {
  const owner = info.Labels?.[MANAGED_LABEL];
  if (owner !== instance) {
    throw new Error(
      `network ${info.Name} exists but is not this control plane's (${MANAGED_LABEL}=${owner ?? "unset"}); remove it or choose another network name`,
    );
  }
  if (info.Driver !== "bridge" || info.Options?.[ICC_OPTION] !== "false") {
    throw new Error(
      `network ${info.Name} lets containers reach each other (driver ${info.Driver}, ${ICC_OPTION}=${info.Options?.[ICC_OPTION] ?? "unset"}); remove it so it is created again`,
    );
  }
  return describeNetwork(info);
}

function describeNetwork(info: Dockerode.NetworkInspectInfo): SandboxNetwork {
  return {
    id: info.Id,
    name: info.Name,
    bridge: info.Options?.[BRIDGE_NAME_OPTION] ?? `br-${info.Id.slice(0, 12)}`,
    gateway: info.IPAM?.Config?.[0]?.Gateway ?? null,
  };
}
