import { cidrContains, cidrsOverlap, metadataIn, toCidr, touchesNonPublic } from "./cidr";
import { classifyName, METADATA_NAMES } from "./classify-address";
import { EgressEntryError, formatEgressTarget, parseEgressEntry } from "./parse-entry";
import type { EgressTarget, OperatorEgressPolicy } from "./policy";

const LOOPBACK = [toCidr("127.0.0.0/8"), toCidr("::1/128")];

/**
 * Reads `SANDBOX_EGRESS_ALLOW`: comma-separated entries (see parseEgressEntry). A metadata
 * address or name is refused, and so is a loopback entry without a port: it would open every
 * service of the host (the control plane included) to every sandbox. Throws EgressEntryError.
 */
export function parseOperatorEgressPolicy(text: string): OperatorEgressPolicy {
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  return {
    allow: entries.map((entry) => {
      const target = parseEgressEntry(entry);
      const metadata = metadataOf(target);
      if (metadata) throw new EgressEntryError(entry, `${metadata} is never allowed`);
      if (target.port === null && isLoopback(target)) {
        throw new EgressEntryError(entry, "a host-loopback entry needs a port (127.0.0.1:11434)");
      }
      return target;
    }),
  };
}

/**
 * Why an `allow_out` entry would widen the operator's policy, or null when it does not. Since
 * allow_out wins over everything but metadata, an entry reaching a non-public address must lie
 * within one operator entry (its network and port); a public one is the sandbox's to choose.
 * A name is judged by name only (`localhost`, metadata names); what it resolves to is judged per
 * connection (decideEgress).
 */
export function checkWithinOperator(
  entry: EgressTarget,
  operator: OperatorEgressPolicy,
): string | null {
  const metadata = metadataOf(entry);
  if (metadata) return `${metadata} is never allowed`;
  if (!reachesNonPublic(entry)) return null;
  if (operator.allow.some((allowed) => within(entry, allowed))) return null;
  const opened = operator.allow.map(formatEgressTarget).join(", ") || "none";
  return `it reaches non-public addresses the operator has not opened (SANDBOX_EGRESS_ALLOW: ${opened})`;
}

function metadataOf(target: EgressTarget): string | undefined {
  if (target.kind === "cidr") {
    const address = metadataIn(toCidr(target.cidr));
    return address ? `the metadata address ${address}` : undefined;
  }
  const covered = [...METADATA_NAMES].find((name) =>
    target.wildcard ? name.endsWith(`.${target.name}`) : name === target.name,
  );
  return covered ? `the metadata name ${covered}` : undefined;
}

function isLoopback(target: EgressTarget): boolean {
  if (target.kind === "host") return classifyName(target.name) === "loopback";
  const cidr = toCidr(target.cidr);
  return LOOPBACK.some((range) => cidrsOverlap(range, cidr));
}

function reachesNonPublic(entry: EgressTarget): boolean {
  if (entry.kind === "cidr") return touchesNonPublic(toCidr(entry.cidr));
  return classifyName(entry.wildcard ? `x.${entry.name}` : entry.name) !== null;
}

/** Every connection `entry` matches, `outer` matches too. */
function within(entry: EgressTarget, outer: EgressTarget): boolean {
  if (outer.port !== null && outer.port !== entry.port) return false;
  if (entry.kind === "cidr") {
    return outer.kind === "cidr" && cidrContains(toCidr(outer.cidr), toCidr(entry.cidr));
  }
  if (outer.kind !== "host") return false;
  if (!outer.wildcard) return !entry.wildcard && entry.name === outer.name;
  return entry.name.endsWith(`.${outer.name}`);
}
