import { networkInterfaces } from "node:os";
import {
  classifyAddress,
  decideEgress,
  isIpLiteral,
  normalizeAddress,
  type OperatorEgressPolicy,
  type SandboxEgressPolicy,
} from "@sandbox-server/egress";
import type { LoopbackForward } from "./egress-ruleset";
import { decideName } from "./sandbox-resolver";
import { VETH_RANGE_PREFIX } from "./veth-link";

/** What the proxy needs of a sandbox at the time of a request. */
export interface ProxyContext {
  policy: SandboxEgressPolicy;
  operator: OperatorEgressPolicy;
  /**
   * The host-loopback ports the sandbox reaches without the proxy (pasta's forwards of operator
   * exceptions; none for a container): the only host-loopback destinations the proxy serves.
   */
  loopbackForwards: LoopbackForward[];
}

export type ProxyDecision =
  /** Connect to exactly this address (the one judged: never looked up again). */
  { allowed: true; address: string } | { allowed: false; status: 403 | 502; rule: string };

/**
 * Whether a sandbox's proxy request for `host:port` may go out, by the rules its enforcer follows
 * (`decideEgress`, the meaning the ruleset compiles): a name is judged first as its resolver
 * judges it (`decideName`), then each address it resolves to as a connection to that name; an
 * address literal by the address rules alone. The proxy connects from the host's network, not
 * the sandbox's, so the host's own addresses are refused outright — loopback except the
 * operator's loopback ports the sandbox reaches anyway (`loopbackForwards`), and every address of
 * the host's interfaces (the control plane, the resolver, the proxy itself).
 */
export async function decideProxyTarget(
  host: string,
  port: number,
  context: ProxyContext,
  resolveName: (name: string) => Promise<string[] | null>,
): Promise<ProxyDecision> {
  const literal = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (isIpLiteral(literal)) return decideAddress(normalizeAddress(literal), port, context);
  const name = literal.toLowerCase().replace(/\.$/, "");
  const named = decideName(name, context.policy);
  if (!named.answer) return { allowed: false, status: 403, rule: named.rule };
  const addresses = await resolveName(name);
  if (addresses === null || addresses.length === 0) {
    return { allowed: false, status: 502, rule: "no such name" };
  }
  let firstRefusal: ProxyDecision | null = null;
  for (const address of addresses) {
    const decision = decideAddress(normalizeAddress(address), port, context, name);
    if (decision.allowed) return decision;
    firstRefusal ??= decision;
  }
  return firstRefusal as ProxyDecision;
}

/** `decideEgress`'s rule, named as the enforcer's reports name it (`non-public range (reserved)`). */
function refused(rule: string): ProxyDecision {
  const named = rule.replace(/^private range \((?!private\))/, "non-public range (");
  return { allowed: false, status: 403, rule: named };
}

function decideAddress(
  address: string,
  port: number,
  context: ProxyContext,
  name?: string,
): ProxyDecision {
  const { policy, operator } = context;
  const kind = classifyAddress(address);
  if (kind === "loopback" || kind === "unspecified") {
    // Only what pasta forwards, and only as the ruleset lets it (`oif "lo"` rules).
    const forwarded = context.loopbackForwards.some(
      (forward) => normalizeAddress(forward.address) === address && forward.port === port,
    );
    if (!forwarded) return refused(`private range (${kind})`);
    const decision = decideEgress(policy, operator, { address, port });
    return decision.allowed ? { allowed: true, address } : refused(decision.rule);
  }
  if (hostAddresses().has(address)) {
    return { allowed: false, status: 403, rule: "the control plane's host" };
  }
  // The host reaches every sandbox's agent server on its veth pair; the proxy connects from the
  // host, so it must not carry one sandbox to another (the host's table refuses that path).
  if (address.startsWith(VETH_RANGE_PREFIX)) {
    return { allowed: false, status: 403, rule: "another sandbox" };
  }
  const decision = decideEgress(policy, operator, { address, port, ...(name ? { name } : {}) });
  return decision.allowed ? { allowed: true, address } : refused(decision.rule);
}

/** The addresses of the host's interfaces, normalised (read at each decision: they change). */
function hostAddresses(): Set<string> {
  const found = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) found.add(normalizeAddress(entry.address.split("%")[0] ?? ""));
  }
  return found;
}
