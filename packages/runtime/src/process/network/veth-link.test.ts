import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { findOnPath } from "../isolation/detect-bwrap";
import { hostAddressOf, hostTable, linkTable, VETH_PREFIX, vethSlot } from "./veth-link";

describe("vethSlot", () => {
  it("gives each slot its own /30 of 198.19.0.0/16: the host's end, then the namespace's", () => {
    expect(vethSlot(0)).toEqual({ index: 0, hostAddress: "198.19.0.1", address: "198.19.0.2" });
    expect(vethSlot(64)).toMatchObject({ hostAddress: "198.19.1.1", address: "198.19.1.2" });
    expect(vethSlot(16_383)).toMatchObject({
      hostAddress: "198.19.255.253",
      address: "198.19.255.254",
    });
  });

  it("finds the host's end from the namespace's address (what sandbox.json records)", () => {
    for (const index of [0, 63, 64, 9000, 16_383]) {
      const slot = vethSlot(index);
      expect(hostAddressOf(slot.address)).toBe(slot.hostAddress);
    }
  });
});

describe("linkTable", () => {
  it("carries the loopback's DNS, proxy and IPv4 operator ports to the host's end, after the egress table", () => {
    const text = linkTable("198.19.0.1", [
      { address: "127.0.0.1", port: 11434 },
      { address: "::1", port: 8443 },
    ]);
    expect(text.split("\n").slice(0, 3)).toEqual([
      "table ip sandbox_link {}",
      "delete table ip sandbox_link",
      "table ip sandbox_link {",
    ]);
    expect(text).toContain("type nat hook output priority filter + 10;");
    expect(text).toContain("ip daddr 127.0.0.1 udp dport 53 dnat to 198.19.0.1");
    expect(text).toContain("ip daddr 127.0.0.1 tcp dport 3128 dnat to 198.19.0.1");
    expect(text).toContain(
      "ip daddr 127.0.0.1 meta l4proto { tcp, udp } th dport { 11434 } dnat to 198.19.0.1",
    );
    expect(text).not.toContain("8443");
    expect(text).toContain('oifname "eth0" ip saddr 127.0.0.0/8 masquerade');
  });

  it("has no port rule without operator ports", () => {
    expect(linkTable("198.19.0.1", [])).not.toContain("th dport {");
  });

  it("leaves the proxy's port to an operator exception on it (carried like the others)", () => {
    const text = linkTable("198.19.0.1", [{ address: "127.0.0.1", port: 3128 }]);
    expect(text).not.toContain("tcp dport 3128");
    expect(text).toContain("th dport { 3128 } dnat to 198.19.0.1");
  });
});

describe("hostTable", () => {
  const text = hostTable([{ address: "127.0.0.1", port: 11434 }]);
  const iif = `iifname "${VETH_PREFIX}*"`;

  it("refuses sandbox to host but replies, its own resolver and proxy, the operator's loopback ports", () => {
    const input = text
      .split("\n")
      .filter((line) => line.startsWith("add rule inet sandbox_veth input"));
    expect(input.map((line) => line.replace("add rule inet sandbox_veth input ", ""))).toEqual([
      `${iif} ct state established,related accept`,
      `${iif} udp dport 53 fib daddr . iif type local accept`,
      `${iif} tcp dport 3128 fib daddr . iif type local accept`,
      `${iif} ct status dnat ip daddr 127.0.0.1 meta l4proto . th dport @loopback_ports accept`,
      `${iif} reject with icmpx type admin-prohibited`,
    ]);
    expect(text).toContain(
      "add element inet sandbox_veth loopback_ports { tcp . 11434, udp . 11434 }",
    );
  });

  it("refuses sandbox to sandbox and ports others DNAT, and lets only replies in", () => {
    const forward = text
      .split("\n")
      .filter((line) => line.startsWith("add rule inet sandbox_veth forward"))
      .map((line) => line.replace("add rule inet sandbox_veth forward ", ""));
    expect(forward).toEqual([
      `${iif} oifname "${VETH_PREFIX}*" reject with icmpx type admin-prohibited`,
      `${iif} ct status dnat reject with icmpx type admin-prohibited`,
      `oifname "${VETH_PREFIX}*" ct state established,related accept`,
      `oifname "${VETH_PREFIX}*" drop`,
    ]);
  });

  it("rewrites its chains in one transaction, keeping other control planes' loopback ports", () => {
    expect(text).toContain("add table inet sandbox_veth");
    expect(text).toContain("flush chain inet sandbox_veth input");
    expect(text).not.toContain("delete table");
    expect(text).not.toContain("flush set");
  });
});

const nft = findOnPath("nft");

describe.runIf(nft !== null && process.getuid?.() === 0)("the tables, as nft reads them", () => {
  /** `nft --check`: the kernel validates the transaction and applies nothing. */
  const check = (text: string) =>
    spawnSync(nft as string, ["--check", "-f", "-"], { input: text, encoding: "utf8" });

  it("are accepted by nft and the kernel (checked, not applied)", () => {
    const forwards = [{ address: "127.0.0.1" as const, port: 11434 }];
    for (const text of [hostTable(forwards), hostTable([]), linkTable("198.19.0.1", forwards)]) {
      const result = check(text);
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
    }
  });

  it("are refused when wrong (the check is not vacuous)", () => {
    expect(check("add rule inet sandbox_veth nowhere drop\n").status).not.toBe(0);
  });
});
