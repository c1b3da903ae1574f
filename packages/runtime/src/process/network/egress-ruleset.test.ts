import { nonPublicRanges, type SandboxEgressPolicy } from "@sandbox-server/egress";
import { describe, expect, it } from "vitest";
import { compileEgressRuleset, loopbackForwardsOf } from "./egress-ruleset";

const open: SandboxEgressPolicy = { allowInternet: true, allowOut: [], denyOut: [] };
const none = { allow: [] };

/** The output chain's rules, in order, without indentation. */
function rulesOf(ruleset: string): string[] {
  const chain = ruleset.slice(ruleset.indexOf("chain output {"), ruleset.indexOf("chain refuse {"));
  return chain
    .split("\n")
    .slice(2)
    .map((line) => line.trim())
    .filter((line) => line !== "" && line !== "}");
}

describe("compileEgressRuleset", () => {
  it("replaces the table in one transaction", () => {
    const text = compileEgressRuleset({ policy: open, operator: none });
    expect(text.split("\n").slice(0, 3)).toEqual([
      "table inet sandbox_egress {}",
      "delete table inet sandbox_egress",
      "table inet sandbox_egress {",
    ]);
  });

  it("refuses every non-public range of the classifier, metadata first, and allows the rest", () => {
    const text = compileEgressRuleset({ policy: open, operator: none });
    for (const range of nonPublicRanges()) expect(text).toContain(range.cidr);
    expect(text).toMatch(/set metadata4 \{[^}]*169\.254\.169\.254\/32/);
    expect(text).toMatch(/set metadata6 \{[^}]*fd00:ec2::254\/128/);
    expect(text).toMatch(
      /set nonpublic4 \{[^}]*10\.0\.0\.0\/8, 172\.16\.0\.0\/12, 192\.168\.0\.0\/16/,
    );
    expect(rulesOf(text)).toEqual([
      'oif "lo" accept',
      "ct state established,related accept",
      "ct state invalid drop",
      "icmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert } accept",
      "ip daddr @metadata4 jump refuse",
      "ip6 daddr @metadata6 jump refuse",
      "meta l4proto { tcp, udp } th dport 53 jump refuse",
      "ip daddr @allow_any4 accept",
      "meta l4proto { tcp, udp } ip daddr . th dport @allow_port4 accept",
      "ip6 daddr @allow_any6 accept",
      "meta l4proto { tcp, udp } ip6 daddr . th dport @allow_port6 accept",
      "ip daddr @deny_any4 jump refuse",
      "meta l4proto { tcp, udp } ip daddr . th dport @deny_port4 jump refuse",
      "ip6 daddr @deny_any6 jump refuse",
      "meta l4proto { tcp, udp } ip6 daddr . th dport @deny_port6 jump refuse",
      "ip daddr @nonpublic4 jump refuse",
      "ip6 daddr @nonpublic6 jump refuse",
      "accept",
    ]);
  });

  it("puts allow_out before deny_out, operator exceptions before the ranges, and refuses the rest without allow_internet", () => {
    const policy: SandboxEgressPolicy = {
      allowInternet: false,
      allowOut: [{ kind: "cidr", cidr: "203.0.113.0/24", port: 443 }],
      denyOut: [{ kind: "cidr", cidr: "2001:db8::/32", port: null }],
    };
    const operator = { allow: [{ kind: "cidr" as const, cidr: "198.18.0.2/32", port: null }] };
    const rules = rulesOf(compileEgressRuleset({ policy, operator }));
    const allow = rules.indexOf(
      "ip daddr 203.0.113.0/24 meta l4proto { tcp, udp } th dport 443 accept",
    );
    const deny = rules.indexOf("ip6 daddr 2001:db8::/32 jump refuse");
    expect(allow).toBeGreaterThan(rules.indexOf("ip daddr @metadata4 jump refuse"));
    expect(deny).toBeGreaterThan(allow);
    // Rule 4: an operator exception counts only with allow_internet.
    expect(rules).not.toContain("ip daddr 198.18.0.2/32 accept");
    expect(rules.at(-1)).toBe("jump refuse");

    const withInternet = rulesOf(
      compileEgressRuleset({ policy: { ...policy, allowInternet: true }, operator }),
    );
    const exception = withInternet.indexOf("ip daddr 198.18.0.2/32 accept");
    expect(exception).toBeGreaterThan(withInternet.indexOf("ip6 daddr 2001:db8::/32 jump refuse"));
    expect(exception).toBeLessThan(withInternet.indexOf("ip daddr @nonpublic4 jump refuse"));
    expect(withInternet.at(-1)).toBe("accept");
  });

  it("forwards operator exceptions on the host's loopback, refused on the sandbox's loopback unless allowed", () => {
    const operator = {
      allow: [
        { kind: "cidr" as const, cidr: "127.0.0.1/32", port: 11434 },
        { kind: "cidr" as const, cidr: "127.0.0.1/32", port: null },
        { kind: "cidr" as const, cidr: "10.0.0.0/8", port: 80 },
      ],
    };
    expect(loopbackForwardsOf(operator)).toEqual([{ address: "127.0.0.1", port: 11434 }]);
    const allowed = rulesOf(compileEgressRuleset({ policy: open, operator }));
    expect(allowed[0]).toBe('oif "lo" meta l4proto { tcp, udp } th dport 11434 accept');
    const closed = rulesOf(
      compileEgressRuleset({ policy: { ...open, allowInternet: false }, operator }),
    );
    expect(closed[0]).toBe('oif "lo" meta l4proto { tcp, udp } th dport 11434 jump refuse');
    const named = rulesOf(
      compileEgressRuleset({
        policy: {
          allowInternet: false,
          allowOut: [{ kind: "cidr", cidr: "127.0.0.0/8", port: 11434 }],
          denyOut: [],
        },
        operator,
      }),
    );
    expect(named[0]).toBe('oif "lo" meta l4proto { tcp, udp } th dport 11434 accept');
  });

  it("fills the name sets with addresses resolved up front", () => {
    const text = compileEgressRuleset({
      policy: {
        ...open,
        allowOut: [{ kind: "host", name: "pypi.org", wildcard: false, port: 443 }],
      },
      operator: none,
      resolved: [{ set: "allow_port4", address: "151.101.0.223", port: 443 }],
    });
    expect(text).toContain(
      "set allow_port4 { type ipv4_addr . inet_service; flags timeout; elements = { 151.101.0.223 . 443 timeout 3600s }; }",
    );
  });

  it("lets DNS through to a resolver address outside the namespace, and to no other", () => {
    const rules = rulesOf(
      compileEgressRuleset({ policy: open, operator: none, resolverAddress: "172.28.0.1" }),
    );
    const resolver = rules.indexOf(
      "ip daddr 172.28.0.1 meta l4proto { tcp, udp } th dport 53 accept",
    );
    expect(resolver).toBeGreaterThan(rules.indexOf("ip daddr @metadata4 jump refuse"));
    expect(resolver).toBe(rules.indexOf("meta l4proto { tcp, udp } th dport 53 jump refuse") - 1);
  });

  it("lets TCP to the egress proxy's address and port through, above the non-public ranges", () => {
    const rules = rulesOf(
      compileEgressRuleset({ policy: open, operator: none, proxyAddress: "172.28.0.1" }),
    );
    const proxy = rules.indexOf("ip daddr 172.28.0.1 tcp dport 3128 accept");
    expect(proxy).toBeGreaterThan(rules.indexOf("ip daddr @metadata4 jump refuse"));
    expect(proxy).toBeLessThan(rules.indexOf("ip daddr @nonpublic4 jump refuse"));
    // Without it, no rule names the port.
    const plain = compileEgressRuleset({ policy: open, operator: none });
    expect(plain).not.toContain("3128");
  });
});
