import {
  addressInCidr,
  type EgressTarget,
  nonPublicRanges,
  type OperatorEgressPolicy,
  type SandboxEgressPolicy,
} from "@sandbox-server/egress";

/** The nftables table each sandbox's namespace holds (family inet: IPv4 and IPv6). */
export const EGRESS_TABLE = "sandbox_egress";

/** Port the sandbox's resolver answers on, on the namespace's 127.0.0.1 (resolv.conf has no port). */
export const RESOLVER_PORT = 53;

/**
 * Port of the control plane's egress proxy where a sandbox reaches it: its namespace's loopback
 * (pasta forwards it to the sandbox's listener on the host), or a container's bridge gateway.
 */
export const PROXY_PORT = 3128;

/** How long an address learnt from a lookup stays in a name rule's set. */
export const RESOLVED_TIMEOUT_S = 3600;

/**
 * An operator exception on the host's loopback (`127.0.0.1:11434`): pasta forwards the same
 * address and port of the namespace's loopback to the host's, TCP and UDP.
 */
export interface LoopbackForward {
  address: "127.0.0.1" | "::1";
  port: number;
}

/** The sets a name rule's resolved addresses go into (see `nameSetOf`). */
export type NameSet = `${"allow" | "deny"}_${"any" | "port"}${4 | 6}`;

export interface ResolvedAddress {
  set: NameSet;
  address: string;
  /** For a `_port` set. */
  port: number | null;
}

export interface EgressRulesetInput {
  policy: SandboxEgressPolicy;
  operator: OperatorEgressPolicy;
  /** Addresses of the policy's exact host names, resolved up front. */
  resolved?: ResolvedAddress[];
  /**
   * Where the sandbox's resolver answers when it is not on the namespace's loopback (a Docker
   * container's bridge gateway): DNS to this address, and no other, is let through.
   */
  resolverAddress?: string;
  /** Where the control plane's egress proxy listens when it is not on the namespace's loopback (TCP PROXY_PORT). */
  proxyAddress?: string;
}

/** The operator entries that are a host-loopback address with a port (the others cannot be forwarded). */
export function loopbackForwardsOf(operator: OperatorEgressPolicy): LoopbackForward[] {
  const forwards: LoopbackForward[] = [];
  for (const target of operator.allow) {
    if (target.kind !== "cidr" || target.port === null) continue;
    const address =
      target.cidr === "127.0.0.1/32" ? "127.0.0.1" : target.cidr === "::1/128" ? "::1" : null;
    if (address) forwards.push({ address, port: target.port });
  }
  return forwards;
}

/** Which set the addresses of a host rule go into, by list, port and address family. */
export function nameSetOf(list: "allow" | "deny", port: number | null, family: 4 | 6): NameSet {
  return `${list}_${port === null ? "any" : "port"}${family}`;
}

/**
 * The nftables ruleset that enforces `policy` in a sandbox's network namespace, as one `nft -f`
 * transaction that replaces the previous one (so a policy change is atomic: new connections follow
 * it at once, established ones go on). It follows `EgressDecision`'s rules in order:
 * metadata refused; allow_out accepted; deny_out refused; non-public ranges refused unless an
 * operator entry matches and allow_internet is on; the rest as allow_internet says. Traffic on the
 * namespace's own loopback is the sandbox's own (its agent server, its resolver), except the
 * forwarded operator ports, which follow the policy like their host address. DNS goes only to the
 * sandbox's resolver. Refusals are fast: TCP reset, ICMP administratively prohibited.
 */
export function compileEgressRuleset(input: EgressRulesetInput): string {
  const { policy, operator } = input;
  const ranges = nonPublicRanges();
  const metadata = (family: 4 | 6) =>
    ranges.filter((r) => r.class === "metadata" && r.family === family).map((r) => r.cidr);
  const nonPublic = (family: 4 | 6) =>
    ranges.filter((r) => r.class !== "metadata" && r.family === family).map((r) => r.cidr);
  const resolved = input.resolved ?? [];

  // By port on any address of the loopback: pasta listens on both 127.0.0.1 and ::1.
  const loopbackPorts = [...new Set(loopbackForwardsOf(operator).map((forward) => forward.port))];
  const loopback = loopbackPorts.map((port) => {
    const target: EgressTarget = { kind: "cidr", cidr: "127.0.0.1/32", port };
    const allowed = policy.allowInternet || policy.allowOut.some((t) => targetCovers(t, target));
    return `    oif "lo" meta l4proto { tcp, udp } th dport ${port} ${allowed ? "accept" : "jump refuse"}`;
  });

  const lines = [
    `table inet ${EGRESS_TABLE} {}`,
    `delete table inet ${EGRESS_TABLE}`,
    `table inet ${EGRESS_TABLE} {`,
    intervalSet("metadata4", "ipv4_addr", metadata(4)),
    intervalSet("metadata6", "ipv6_addr", metadata(6)),
    intervalSet("nonpublic4", "ipv4_addr", nonPublic(4)),
    intervalSet("nonpublic6", "ipv6_addr", nonPublic(6)),
    ...(["allow", "deny"] as const).flatMap((list) =>
      ([4, 6] as const).flatMap((family) => [
        nameSet(nameSetOf(list, null, family), family, false, resolved),
        nameSet(nameSetOf(list, 0, family), family, true, resolved),
      ]),
    ),
    // Recently refused destinations (address . port), read on demand for denial reports. Each
    // counts its refused packets: one per TCP connect (the reset fails it at once, so no SYN is
    // sent again) and one per UDP datagram. A refusal keeps its element ten minutes more.
    `  set refused4 { type ipv4_addr . inet_service; size 256; flags dynamic, timeout; timeout 10m; counter; }`,
    `  set refused6 { type ipv6_addr . inet_service; size 256; flags dynamic, timeout; timeout 10m; counter; }`,
    "  chain output {",
    "    type filter hook output priority filter; policy accept;",
    ...loopback,
    '    oif "lo" accept',
    "    ct state established,related accept",
    // A packet conntrack cannot place (out of window, after the entry closed) is dropped, never
    // refused: a reset would cut a live connection the host made to the agent server.
    "    ct state invalid drop",
    // Neighbour discovery (to link-local and multicast addresses) keeps IPv6 working.
    "    icmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert } accept",
    "    ip daddr @metadata4 jump refuse",
    "    ip6 daddr @metadata6 jump refuse",
    ...(input.resolverAddress
      ? [
          `    ${familyOf(input.resolverAddress) === 4 ? "ip" : "ip6"} daddr ${input.resolverAddress} meta l4proto { tcp, udp } th dport ${RESOLVER_PORT} accept`,
        ]
      : []),
    ...(input.proxyAddress
      ? [
          `    ${familyOf(input.proxyAddress) === 4 ? "ip" : "ip6"} daddr ${input.proxyAddress} tcp dport ${PROXY_PORT} accept`,
        ]
      : []),
    `    meta l4proto { tcp, udp } th dport ${RESOLVER_PORT} jump refuse`,
    ...policy.allowOut.flatMap((target) => cidrRules(target, "accept")),
    ...nameSetRules("allow", "accept"),
    ...policy.denyOut.flatMap((target) => cidrRules(target, "jump refuse")),
    ...nameSetRules("deny", "jump refuse"),
    ...(policy.allowInternet
      ? operator.allow.flatMap((target) => cidrRules(target, "accept"))
      : []),
    "    ip daddr @nonpublic4 jump refuse",
    "    ip6 daddr @nonpublic6 jump refuse",
    policy.allowInternet ? "    accept" : "    jump refuse",
    "  }",
    "  chain refuse {",
    "    meta nfproto ipv4 meta l4proto { tcp, udp } update @refused4 { ip daddr . th dport }",
    "    meta nfproto ipv6 meta l4proto { tcp, udp } update @refused6 { ip6 daddr . th dport }",
    "    meta l4proto tcp reject with tcp reset",
    "    reject with icmpx type admin-prohibited",
    "  }",
    "}",
  ];
  return `${lines.filter((line) => line !== "").join("\n")}\n`;
}

/** The rule of a CIDR target (by address, and port when it has one); host targets are in sets. */
function cidrRules(target: EgressTarget, verdict: string): string[] {
  if (target.kind !== "cidr") return [];
  const match = `${familyOf(target.cidr) === 4 ? "ip" : "ip6"} daddr ${target.cidr}`;
  const port = target.port === null ? "" : ` meta l4proto { tcp, udp } th dport ${target.port}`;
  return [`    ${match}${port} ${verdict}`];
}

/**
 * The rules of a list's host targets: the sets their resolved addresses go into (by the sandbox's
 * resolver, or up front), for any port and for a given port, both families. Empty sets cost
 * nothing, so they are always there and a lookup never has to change a rule.
 */
function nameSetRules(list: "allow" | "deny", verdict: string): string[] {
  return ([4, 6] as const).flatMap((family) => {
    const daddr = family === 4 ? "ip daddr" : "ip6 daddr";
    return [
      `    ${daddr} @${nameSetOf(list, null, family)} ${verdict}`,
      `    meta l4proto { tcp, udp } ${daddr} . th dport @${nameSetOf(list, 0, family)} ${verdict}`,
    ];
  });
}

/** A name set, with the addresses resolved up front (each with its timeout). */
function nameSet(
  name: NameSet,
  family: 4 | 6,
  withPort: boolean,
  resolved: ResolvedAddress[],
): string {
  const type = `${family === 4 ? "ipv4_addr" : "ipv6_addr"}${withPort ? " . inet_service" : ""}`;
  const elements = [
    ...new Set(
      resolved
        .filter((entry) => entry.set === name)
        .map((entry) => `${entry.address}${withPort ? ` . ${entry.port}` : ""}`),
    ),
  ];
  const initial = elements.length
    ? ` elements = { ${elements.map((e) => `${e} timeout ${RESOLVED_TIMEOUT_S}s`).join(", ")} };`
    : "";
  return `  set ${name} { type ${type}; flags timeout;${initial} }`;
}

function intervalSet(name: string, type: string, cidrs: string[]): string {
  return `  set ${name} { type ${type}; flags interval; auto-merge; elements = { ${cidrs.join(", ")} }; }`;
}

function familyOf(cidr: string): 4 | 6 {
  return cidr.includes(":") ? 6 : 4;
}

/** Whether an allow entry (a CIDR) covers every connection to `target` (a single loopback address and port). */
function targetCovers(entry: EgressTarget, target: EgressTarget & { kind: "cidr" }): boolean {
  if (entry.kind !== "cidr" || familyOf(entry.cidr) !== familyOf(target.cidr)) return false;
  if (entry.port !== null && entry.port !== target.port) return false;
  return addressInCidr(target.cidr.split("/")[0] as string, entry.cidr);
}
