import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import type { EgressTarget } from "./policy";

/** A destination entry that cannot be read; the message names the entry and what is wrong. */
export class EgressEntryError extends Error {
  override name = "EgressEntryError";
  constructor(
    readonly entry: string,
    reason: string,
  ) {
    super(`"${entry}": ${reason}`);
  }
}

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Reads one `allow_out`/`deny_out` (or `SANDBOX_EGRESS_ALLOW`) entry: a host name (`pypi.org`),
 * a wildcard (`*.github.com`), an IPv4/IPv6 address or CIDR, each optionally with `:port`
 * (IPv6 in brackets when a port follows: `[::1]:11434`, `[2001:db8::/32]:443`). Names are
 * lower-cased, a CIDR becomes its network address, an IPv4-mapped IPv6 address its IPv4 one.
 * Throws EgressEntryError.
 */
export function parseEgressEntry(text: string): EgressTarget {
  const entry = text.trim();
  if (entry === "") throw new EgressEntryError(text, "empty entry");
  if (entry.includes("://")) {
    throw new EgressEntryError(entry, "a host name, address or CIDR, not a URL (pypi.org:443)");
  }
  const { host, port } = splitPort(entry);
  if (host.includes("/") || isIP(host) !== 0)
    return { kind: "cidr", cidr: parseCidr(entry, host), port };
  return { kind: "host", ...parseName(entry, host), port };
}

/** The entry's text in its normalised form; `parseEgressEntry(formatEgressTarget(t))` gives t. */
export function formatEgressTarget(target: EgressTarget): string {
  let host: string;
  if (target.kind === "host") host = `${target.wildcard ? "*." : ""}${target.name}`;
  else {
    const [address, bits] = target.cidr.split("/");
    const single = bits === (address?.includes(":") ? "128" : "32");
    host = single ? (address ?? target.cidr) : target.cidr;
    if (target.port !== null && target.cidr.includes(":")) host = `[${host}]`;
  }
  return target.port === null ? host : `${host}:${target.port}`;
}

function splitPort(entry: string): { host: string; port: number | null } {
  if (entry.startsWith("[")) {
    const close = entry.indexOf("]");
    if (close === -1) throw new EgressEntryError(entry, "missing ] after the IPv6 address");
    const rest = entry.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) {
      throw new EgressEntryError(entry, "only :port may follow ]");
    }
    const host = entry.slice(1, close);
    if (!host.includes(":")) throw new EgressEntryError(entry, "brackets are for IPv6 addresses");
    return { host, port: rest === "" ? null : parsePort(entry, rest.slice(1)) };
  }
  const colons = entry.split(":").length - 1;
  // Two or more colons: a bare IPv6 address or CIDR, which cannot carry a port without brackets.
  if (colons !== 1) return { host: entry, port: null };
  const at = entry.indexOf(":");
  return { host: entry.slice(0, at), port: parsePort(entry, entry.slice(at + 1)) };
}

function parsePort(entry: string, text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw new EgressEntryError(entry, "the port must be a number from 1 to 65535");
  }
  return port;
}

function parseCidr(entry: string, host: string): string {
  const [address = "", bitsText, extra] = host.split("/");
  if (extra !== undefined || isIP(address) === 0) {
    throw new EgressEntryError(entry, "not an IPv4/IPv6 address or CIDR");
  }
  let ip = ipaddr.parse(address);
  const max = ip.kind() === "ipv4" ? 32 : 128;
  let bits = max;
  if (bitsText !== undefined) {
    bits = /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
    if (!(bits >= 0 && bits <= max)) {
      throw new EgressEntryError(entry, `the prefix length must be from 0 to ${max}`);
    }
  }
  // ::ffff:a.b.c.d/≥96 is an IPv4 network: connections to it are judged as IPv4.
  if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress() && bits >= 96) {
    ip = ip.toIPv4Address();
    bits -= 96;
  }
  const network =
    ip instanceof ipaddr.IPv4
      ? ipaddr.IPv4.networkAddressFromCIDR(`${ip.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${ip.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}

function parseName(entry: string, host: string): { name: string; wildcard: boolean } {
  const wildcard = host.startsWith("*.");
  const name = (wildcard ? host.slice(2) : host).toLowerCase().replace(/\.$/, "");
  const labels = name.split(".");
  if (name.length === 0 || name.length > 253 || !labels.every((label) => LABEL.test(label))) {
    throw new EgressEntryError(
      entry,
      "not a host name, *.wildcard, IP address or CIDR (a name has letters, digits, - and dots; a wildcard only a leading *.)",
    );
  }
  if (/^\d+$/.test(labels[labels.length - 1] ?? "")) {
    throw new EgressEntryError(
      entry,
      "not a valid IP address, and a host name cannot end in digits",
    );
  }
  return { name, wildcard };
}
