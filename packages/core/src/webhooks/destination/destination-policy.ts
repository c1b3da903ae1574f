import { lookup } from "node:dns/promises";
import { networkInterfaces } from "node:os";
import {
  type AddressClass,
  classifyAddress,
  classifyName,
  isIpLiteral,
  normalizeAddress,
} from "@sandbox-server/egress";
import type { CoreConfig, CoreDeps, WebhookTarget } from "../../deps";

/** What vetting a webhook destination uses. */
export type DestinationDeps = Pick<CoreDeps, "repos"> & {
  config: Pick<
    CoreConfig,
    | "webhookAllowPrivateNetworks"
    | "webhookDeniedTargets"
    | "webhookResolveHost"
    | "webhookTimeoutMs"
  >;
};

/** Why a destination is refused: the class of an address it resolves to, or what it is. */
export type Refusal = Exclude<AddressClass, "public"> | "control-plane" | "agent-server";

/** Allowed: the checked addresses to connect to, in the resolver's order. */
export type Verdict = { ok: true; addresses: string[] } | { ok: false; refusal: Refusal };

/** The host name could not be resolved (or resolved to nothing): not a refusal, a failure. */
export class DnsFailure extends Error {
  override readonly name = "DnsFailure";
}

/** Classes `webhookAllowPrivateNetworks` lets through; everything else but `public` never passes. */
const PRIVATE_CLASSES: ReadonlySet<AddressClass> = new Set(["loopback", "private", "cgnat"]);

/** A URL's host (IPv6 without brackets) and port (the scheme's default when absent). */
export function targetOf(url: string | URL): WebhookTarget {
  const parsed = typeof url === "string" ? new URL(url) : url;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
  return { host, port };
}

/**
 * Decides whether a webhook may reach `target`, and at which address. A host name is resolved
 * once; every address it resolves to must pass (one refused address refuses the name), and the
 * caller connects to the returned addresses, never resolving again — so a DNS answer that changes
 * between this check and the connection (rebinding) cannot reach anything unchecked.
 * Throws `DnsFailure` when the name does not resolve.
 */
export async function vetDestination(
  deps: DestinationDeps,
  target: WebhookTarget,
): Promise<Verdict> {
  const byName = isIpLiteral(target.host) ? null : classifyName(target.host);
  if (byName && byName !== "public" && !allowed(deps, byName)) {
    return { ok: false, refusal: byName };
  }
  const addresses = isIpLiteral(target.host) ? [target.host] : await resolveHost(deps, target.host);
  for (const address of addresses) {
    const cls = classifyAddress(address);
    if (cls !== "public" && !allowed(deps, cls)) return { ok: false, refusal: cls };
  }
  const service = await matchingService(deps, addresses, target.port);
  if (service) return { ok: false, refusal: service };
  return { ok: true, addresses };
}

function allowed(
  deps: { config: Pick<CoreConfig, "webhookAllowPrivateNetworks"> },
  cls: AddressClass,
): boolean {
  return cls === "public" || (deps.config.webhookAllowPrivateNetworks && PRIVATE_CLASSES.has(cls));
}

export async function resolveHost(
  deps: { config: Pick<CoreConfig, "webhookResolveHost" | "webhookTimeoutMs"> },
  host: string,
): Promise<string[]> {
  const resolve = deps.config.webhookResolveHost ?? systemResolve;
  let addresses: string[];
  try {
    addresses = await withTimeout(resolve(host), deps.config.webhookTimeoutMs);
  } catch (error) {
    throw new DnsFailure(`${host} did not resolve`, { cause: error });
  }
  if (addresses.length === 0) throw new DnsFailure(`${host} resolved to no address`);
  return addresses;
}

async function systemResolve(host: string): Promise<string[]> {
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("resolving timed out")), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The control plane itself (`webhookDeniedTargets`) or any sandbox's agent server, when one of
 * `addresses` with `port` is where it listens. Every address of this machine (loopback, the
 * unspecified address, each interface's) counts as the same host, since a service listening on
 * one of them is usually reachable through all.
 */
async function matchingService(
  deps: Pick<CoreDeps, "repos"> & {
    config: Pick<CoreConfig, "webhookDeniedTargets" | "webhookResolveHost" | "webhookTimeoutMs">;
  },
  addresses: string[],
  port: number,
): Promise<"control-plane" | "agent-server" | null> {
  const controlPlane = deps.config.webhookDeniedTargets.filter((t) => t.port === port);
  if (await reachesAny(deps, addresses, controlPlane)) return "control-plane";
  const agentServers: WebhookTarget[] = [];
  for (const sandbox of await deps.repos.sandboxes.listAll()) {
    if (!sandbox.agentServerUrl) continue;
    const target = targetOf(sandbox.agentServerUrl);
    if (target.port === port) agentServers.push(target);
  }
  if (await reachesAny(deps, addresses, agentServers)) return "agent-server";
  return null;
}

async function reachesAny(
  deps: { config: Pick<CoreConfig, "webhookResolveHost" | "webhookTimeoutMs"> },
  addresses: string[],
  targets: WebhookTarget[],
): Promise<boolean> {
  if (targets.length === 0) return false;
  const wanted = addresses.map(normalizeAddress);
  const wantsLocal = wanted.some(isThisMachine);
  for (const target of targets) {
    const own = await addressesOf(deps, target.host);
    if (own.some((a) => wanted.includes(a))) return true;
    if (wantsLocal && own.some(isThisMachine)) return true;
  }
  return false;
}

async function addressesOf(
  deps: { config: Pick<CoreConfig, "webhookResolveHost" | "webhookTimeoutMs"> },
  host: string,
): Promise<string[]> {
  if (isIpLiteral(host)) return [normalizeAddress(host)];
  if (classifyName(host) === "loopback") return ["127.0.0.1", "::1"];
  try {
    return (await resolveHost(deps, host)).map(normalizeAddress);
  } catch {
    return [];
  }
}

function isThisMachine(address: string): boolean {
  const cls = classifyAddress(address);
  if (cls === "loopback" || cls === "unspecified") return true;
  return Object.values(networkInterfaces()).some((list) =>
    (list ?? []).some((info) => normalizeAddress(info.address) === address),
  );
}
