import { parseEgressEntry, type SandboxEgressPolicy } from "@sandbox-server/egress";
import { describe, expect, it } from "vitest";
import { loopbackForwardsOf } from "./egress-ruleset";
import { decideProxyTarget, type ProxyContext } from "./proxy-decision";

const names: Record<string, string[]> = {
  "pypi.org": ["151.101.0.223"],
  "internal.example.com": ["10.20.0.5"],
  "mixed.example.com": ["10.99.0.1", "151.101.0.224"],
};
const resolve = async (name: string) => names[name] ?? null;

function context(policy: Partial<SandboxEgressPolicy>, operator: string[] = []): ProxyContext {
  return {
    policy: { allowInternet: true, allowOut: [], denyOut: [], ...policy },
    operator: { allow: operator.map(parseEgressEntry) },
    loopbackForwards: loopbackForwardsOf({ allow: operator.map(parseEgressEntry) }),
  };
}

describe("decideProxyTarget", () => {
  it("judges an address literal by the address rules, IPv4-mapped IPv6 as IPv4", async () => {
    const open = context({});
    expect(await decideProxyTarget("151.101.0.223", 443, open, resolve)).toEqual({
      allowed: true,
      address: "151.101.0.223",
    });
    expect(await decideProxyTarget("10.1.2.3", 443, open, resolve)).toMatchObject({
      allowed: false,
      rule: "private range (private)",
    });
    expect(await decideProxyTarget("[::ffff:10.1.2.3]", 443, open, resolve)).toMatchObject({
      allowed: false,
      rule: "private range (private)",
    });
    expect(await decideProxyTarget("169.254.169.254", 80, open, resolve)).toMatchObject({
      allowed: false,
      rule: "metadata",
    });
    // The operator opens it: allowed, at the normalised address.
    expect(
      await decideProxyTarget("[::ffff:10.1.2.3]", 443, context({}, ["10.1.0.0/16"]), resolve),
    ).toEqual({ allowed: true, address: "10.1.2.3" });
  });

  it("never carries a sandbox to another's veth address, even where the operator opens it", async () => {
    const opened = context({}, ["198.18.0.0/15"]);
    expect(await decideProxyTarget("198.18.7.2", 8000, opened, resolve)).toEqual({
      allowed: true,
      address: "198.18.7.2",
    });
    expect(await decideProxyTarget("198.19.7.2", 8000, opened, resolve)).toMatchObject({
      allowed: false,
      rule: "another sandbox",
    });
  });

  it("judges a name first as the resolver does, then the addresses it resolves to", async () => {
    const closed = context({ allowInternet: false, allowOut: [parseEgressEntry("pypi.org:443")] });
    expect(await decideProxyTarget("PyPI.org.", 443, closed, resolve)).toEqual({
      allowed: true,
      address: "151.101.0.223",
    });
    expect(await decideProxyTarget("pypi.org", 80, closed, resolve)).toMatchObject({
      allowed: false,
      rule: "allow_internet false",
    });
    const denied = context({ denyOut: [parseEgressEntry("*.example.com")] });
    expect(await decideProxyTarget("internal.example.com", 443, denied, resolve)).toMatchObject({
      allowed: false,
      status: 403,
      rule: "deny_out *.example.com",
    });
    expect(await decideProxyTarget("nowhere.example", 443, context({}), resolve)).toMatchObject({
      allowed: false,
      status: 502,
    });
  });

  it("never lets a name open a non-public address the operator keeps closed; picks an allowed one", async () => {
    const byName = context({
      allowInternet: false,
      allowOut: [parseEgressEntry("*.example.com")],
    });
    expect(await decideProxyTarget("internal.example.com", 443, byName, resolve)).toMatchObject({
      allowed: false,
      rule: "private range (private)",
    });
    expect(await decideProxyTarget("mixed.example.com", 443, byName, resolve)).toEqual({
      allowed: true,
      address: "151.101.0.224",
    });
  });

  it("refuses the host's loopback except the operator's forwarded ports, and the host's own addresses", async () => {
    const forwarded = context({}, ["127.0.0.1:11434"]);
    expect(await decideProxyTarget("127.0.0.1", 11434, forwarded, resolve)).toEqual({
      allowed: true,
      address: "127.0.0.1",
    });
    expect(await decideProxyTarget("127.0.0.1", 3000, forwarded, resolve)).toMatchObject({
      allowed: false,
      rule: "non-public range (loopback)",
    });
    // An operator range over the loopback without a port is not forwarded by pasta: refused too.
    expect(
      await decideProxyTarget("127.0.0.2", 3000, context({}, ["127.0.0.0/8"]), resolve),
    ).toMatchObject({ allowed: false, rule: "non-public range (loopback)" });
    expect(await decideProxyTarget("0.0.0.0", 3000, forwarded, resolve)).toMatchObject({
      allowed: false,
      rule: "non-public range (unspecified)",
    });
    expect(await decideProxyTarget("localhost", 11434, forwarded, resolve)).toMatchObject({
      allowed: false,
      rule: "loopback name",
    });
    // Where nothing forwards the host's loopback (a container), the exception is not served.
    const container = { ...forwarded, loopbackForwards: [] };
    expect(await decideProxyTarget("127.0.0.1", 11434, container, resolve)).toMatchObject({
      allowed: false,
      rule: "non-public range (loopback)",
    });
  });
});
