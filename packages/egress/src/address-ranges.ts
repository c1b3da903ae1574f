import ipaddr from "ipaddr.js";
import { cidrContainsAddress, parseAddress, toCidr } from "./cidr";
import { type AddressClass, classifyAddress, METADATA_ADDRESSES } from "./classify-address";

/** A network the classifier puts in one class, for enforcers that match by prefix. */
export interface AddressRange {
  /** `10.0.0.0/8`, `fe80::/10`, `169.254.169.254/32`. */
  cidr: string;
  family: 4 | 6;
  class: AddressClass;
}

type SpecialRanges = Record<
  string,
  [ipaddr.IPv4 | ipaddr.IPv6, number] | [ipaddr.IPv4 | ipaddr.IPv6, number][]
>;

/**
 * Every non-public network as `classifyAddress` sees it, so an enforcer refuses by prefix what the
 * classifier refuses by address: ipaddr.js's special ranges (the ones `classifyAddress` names, and
 * the rest as `reserved`), and the metadata addresses. IPv6 forms that carry an IPv4 address
 * (`::ffff:0:0/96`, NAT64 `64:ff9b::/96`) are judged by that address, so they appear here as the
 * embedded non-public IPv4 ranges, not as a whole; the classifier's `::/96` (IPv4-compatible) is
 * reserved whole.
 */
export function nonPublicRanges(): AddressRange[] {
  const v4 = specialRanges(
    (ipaddr.IPv4.prototype as unknown as { SpecialRanges: SpecialRanges }).SpecialRanges,
    4,
  );
  const embedding = ["::ffff:", "64:ff9b::"];
  const embedded = v4.flatMap((range) => {
    const [address, bits] = range.cidr.split("/");
    return embedding.map((prefix) => ({
      ...range,
      cidr: `${ipaddr.IPv6.parse(`${prefix}${address}`).toString()}/${96 + Number(bits)}`,
      family: 6 as const,
    }));
  });
  const carriers = new Set(["ipv4Mapped", "rfc6052"]);
  const v6 = specialRanges(
    (ipaddr.IPv6.prototype as unknown as { SpecialRanges: SpecialRanges }).SpecialRanges,
    6,
    carriers,
  );
  // Only the /96 of NAT64 carries IPv4; RFC 8215's local-use 64:ff9b:1::/48 is reserved whole.
  v6.push({ cidr: "64:ff9b:1::/48", family: 6, class: "reserved" });
  v6.push({ cidr: "::/96", family: 6, class: "reserved" });
  const metadata = METADATA_ADDRESSES.map((address) => {
    const ip = ipaddr.parse(address);
    const family = ip.kind() === "ipv4" ? 4 : 6;
    return {
      cidr: `${ip.toString()}/${family === 4 ? 32 : 128}`,
      family,
      class: "metadata",
    } as const;
  });
  return [...metadata, ...v4, ...embedded, ...v6];
}

function specialRanges(
  table: SpecialRanges,
  family: 4 | 6,
  skip: Set<string> = new Set(),
): AddressRange[] {
  const ranges: AddressRange[] = [];
  for (const [name, value] of Object.entries(table)) {
    if (skip.has(name)) continue;
    const list = (Array.isArray(value[0]) ? value : [value]) as [
      ipaddr.IPv4 | ipaddr.IPv6,
      number,
    ][];
    for (const [address, bits] of list) {
      const text = address.toString();
      ranges.push({ cidr: `${text}/${bits}`, family, class: classifyAddress(text) });
    }
  }
  return ranges;
}

/** Whether `address` lies in `cidr` (same family; an IPv4-mapped address counts as IPv4). */
export function addressInCidr(address: string, cidr: string): boolean {
  const ip = parseAddress(address);
  try {
    return ip !== null && cidrContainsAddress(toCidr(cidr), ip);
  } catch {
    return false;
  }
}

/** An address's bytes in network order (4 or 16). */
export function addressBytes(address: string): Buffer {
  return Buffer.from(ipaddr.parse(address).toByteArray());
}
