import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * What kind of address a webhook destination is. `public` is global unicast; the others are
 * refused unless the policy lets them through (see `destination-policy.ts`).
 */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "cgnat"
  | "link-local"
  | "multicast"
  | "unspecified"
  | "broadcast"
  | "metadata"
  | "reserved";

/** Cloud instance-metadata services (AWS incl. ECS and IPv6, GCP, Azure, Alibaba): never a target. */
export const METADATA_ADDRESSES = [
  "169.254.169.254",
  "169.254.170.2",
  "fd00:ec2::254",
  "168.63.129.16",
  "100.100.100.200",
].map((a) => ipaddr.parse(a).toNormalizedString());

/** Names of metadata services that must be refused before any DNS lookup. */
export const METADATA_NAMES: ReadonlySet<string> = new Set([
  "metadata.google.internal",
  "metadata.goog",
]);

const RANGE_CLASSES: Record<string, AddressClass> = {
  unicast: "public",
  loopback: "loopback",
  private: "private",
  uniqueLocal: "private",
  carrierGradeNat: "cgnat",
  linkLocal: "link-local",
  multicast: "multicast",
  unspecified: "unspecified",
  broadcast: "broadcast",
};

/** True for an IPv4 or IPv6 literal (IPv6 without brackets). */
export function isIpLiteral(host: string): boolean {
  return isIP(host) !== 0;
}

/** One spelling per address (IPv4-mapped IPv6 as IPv4), for comparing addresses. */
export function normalizeAddress(address: string): string {
  try {
    const ip = ipaddr.process(address);
    return ip.toNormalizedString();
  } catch {
    return address.toLowerCase();
  }
}

/**
 * Classifies one resolved address. IPv4-mapped (`::ffff:a.b.c.d`) and NAT64 (`64:ff9b::/96`)
 * IPv6 forms are judged by the IPv4 address they carry; every range ipaddr.js names other than
 * the ones above (documentation, benchmarking, 6to4, Teredo, IPv4-compatible, …) is `reserved`.
 */
export function classifyAddress(address: string): AddressClass {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return "reserved";
  }
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.match(ipaddr.parseCIDR("64:ff9b::/96"))) {
      ip = ipaddr.fromByteArray(v6.toByteArray().slice(12));
    } else if (v6.match(ipaddr.parseCIDR("::/96")) && v6.range() === "unicast") {
      // IPv4-compatible (::a.b.c.d), deprecated: never a real destination.
      return "reserved";
    }
  }
  if (METADATA_ADDRESSES.includes(ip.toNormalizedString())) return "metadata";
  return RANGE_CLASSES[ip.range()] ?? "reserved";
}

/** A host name that is refused by name: metadata services and `localhost` (RFC 6761). */
export function classifyName(hostname: string): AddressClass | null {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (METADATA_NAMES.has(name)) return "metadata";
  if (name === "localhost" || name.endsWith(".localhost")) return "loopback";
  return null;
}
