import { cidrContainsAddress, parseAddress, toCidr } from "./cidr";
import { classifyAddress, classifyName } from "./classify-address";
import { formatEgressTarget } from "./parse-entry";
import type {
  EgressDecision,
  EgressTarget,
  OperatorEgressPolicy,
  SandboxEgressPolicy,
} from "./policy";

/** One connection as an enforcer sees it. */
export interface EgressConnection {
  address: string;
  port: number;
  /** The name the sandbox resolved to reach `address`, when known. */
  name?: string;
}

/**
 * The reference meaning of a policy (see EgressDecision for the rules). One addition the rules
 * imply: an `allow_out` *name* never opens a non-public address. Core can check an address entry
 * against the operator's policy at create, but not what a name will resolve to (`*.nip.io`,
 * a rebinding DNS server), so a name entry allows a non-public address only where an operator
 * entry opens that address too.
 */
export function decideEgress(
  policy: SandboxEgressPolicy,
  operator: OperatorEgressPolicy,
  connection: EgressConnection,
): EgressDecision {
  const addressClass = classifyAddress(connection.address);
  const name = connection.name === undefined ? undefined : normalizeName(connection.name);
  if (addressClass === "metadata" || (name !== undefined && classifyName(name) === "metadata")) {
    return { allowed: false, rule: "metadata" };
  }
  const target = { ...connection, name };
  const isPublic = addressClass === "public";
  const opened = isPublic ? undefined : operator.allow.find((entry) => matches(entry, target));
  const allowed = policy.allowOut.find((entry) => matches(entry, target));
  if (allowed && (allowed.kind === "cidr" || isPublic || opened)) {
    return { allowed: true, rule: `allow_out ${formatEgressTarget(allowed)}` };
  }
  const denied = policy.denyOut.find((entry) => matches(entry, target));
  if (denied) return { allowed: false, rule: `deny_out ${formatEgressTarget(denied)}` };
  if (!isPublic && !opened) return { allowed: false, rule: `private range (${addressClass})` };
  if (!policy.allowInternet) return { allowed: false, rule: "allow_internet false" };
  return {
    allowed: true,
    rule: opened ? `operator ${formatEgressTarget(opened)}` : "allow_internet",
  };
}

/** Whether the entry covers the connection: its address or name, and its port if it has one. */
export function matches(
  entry: EgressTarget,
  connection: { address: string; port: number; name?: string | undefined },
): boolean {
  if (entry.port !== null && entry.port !== connection.port) return false;
  if (entry.kind === "cidr") {
    const ip = parseAddress(connection.address);
    return ip !== null && cidrContainsAddress(toCidr(entry.cidr), ip);
  }
  const name = connection.name;
  if (name === undefined) return false;
  return entry.wildcard ? name.endsWith(`.${entry.name}`) : name === entry.name;
}

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}
