import ipaddr from "ipaddr.js";
import { classifyAddress, METADATA_ADDRESSES } from "./classify-address";

export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** `a.b.c.d/n` or `x::/n` (as EgressTarget stores it). */
export function toCidr(text: string): Cidr {
  return ipaddr.parseCIDR(text);
}

/** The address as connections are judged: an IPv4-mapped IPv6 address as IPv4. */
export function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    return ipaddr.process(address);
  } catch {
    return null;
  }
}

export function cidrContainsAddress([network, bits]: Cidr, ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return network.kind() === ip.kind() && ip.match(network, bits);
}

/** Every address of `inner` lies in `outer`. */
export function cidrContains(outer: Cidr, inner: Cidr): boolean {
  return inner[1] >= outer[1] && cidrContainsAddress(outer, inner[0]);
}

export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  return cidrContains(a, b) || cidrContains(b, a);
}

/** ipaddr.js's own range table (what `range()` reads), untyped in its declarations. */
function rangesOf(prototype: object): Cidr[] {
  const special = (prototype as { SpecialRanges: Record<string, Cidr | Cidr[]> }).SpecialRanges;
  return Object.values(special).flatMap((r) => (Array.isArray(r[0]) ? (r as Cidr[]) : [r as Cidr]));
}

/**
 * Every range `classifyAddress` may call something other than `public`, as CIDRs. IPv6 ranges
 * that carry IPv4 addresses (NAT64, IPv4-compatible) are listed whole: an entry inside them is
 * judged as non-public, never by the IPv4 address it carries.
 */
const NON_PUBLIC: Cidr[] = [
  ...rangesOf(ipaddr.IPv4.prototype),
  ...rangesOf(ipaddr.IPv6.prototype),
  ipaddr.parseCIDR("::/96"),
];

const METADATA: Cidr[] = METADATA_ADDRESSES.map((a) => {
  const ip = ipaddr.parse(a);
  return [ip, ip.kind() === "ipv4" ? 32 : 128];
});

/** A metadata address inside the CIDR, if any. */
export function metadataIn(cidr: Cidr): string | undefined {
  const hit = METADATA.find(([ip]) => cidrContainsAddress(cidr, ip));
  return hit?.[0].toString();
}

/**
 * Whether some address of the CIDR is not public. A single address is classified as the
 * classifier does; a wider network is non-public when it touches any non-public range.
 */
export function touchesNonPublic(cidr: Cidr): boolean {
  const [ip, bits] = cidr;
  if (bits === (ip.kind() === "ipv4" ? 32 : 128))
    return classifyAddress(ip.toString()) !== "public";
  return NON_PUBLIC.some((range) => cidrsOverlap(range, cidr)) || metadataIn(cidr) !== undefined;
}
