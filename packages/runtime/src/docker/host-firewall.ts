import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { PROXY_PORT } from "../process/network/egress-ruleset";

/**
 * `auto`: protect the host when this process can (the daemon's bridge is in its network
 * namespace and iptables works, i.e. root on the daemon's machine), warn otherwise.
 * `iptables`: the same, but a sandbox network that cannot be protected is an error.
 * `off`: leave the host's firewall alone (an operator manages it).
 */
export type HostFirewallMode = "auto" | "iptables" | "off";

export interface FirewallRule {
  chain: string;
  /** Some chains exist only while dockerd manages iptables; such rules are skipped without it. */
  optional: boolean;
  spec: string[];
}

const COMMENT = "sandbox-server: sandboxes must not reach the host";
const RESOLVER_COMMENT = "sandbox-server: the sandboxes' resolver";
const PROXY_COMMENT = "sandbox-server: the sandboxes' egress proxy";
const REJECT = ["-j", "REJECT", "--reject-with", "icmp-port-unreachable"];

/**
 * Traffic from a container to the host's own addresses (the bridge gateway, any host IP) is
 * delivered locally and passes INPUT, never FORWARD: Docker's icc=false and DOCKER-USER do not see
 * it. Only new connections are refused; replies to the control plane's connections (through
 * docker-proxy, or NAT with dockerd's --userland-proxy=false) are established ones. The link-local
 * range holds cloud metadata services.
 */
export function firewallRulesFor(bridge: string, resolver = false): FirewallRule[] {
  const comment = ["-m", "comment", "--comment", COMMENT];
  // Last, so they are inserted above the INPUT rule: the control plane's resolver and egress
  // proxy for the sandboxes on the bridge's gateway (their egress rulesets let DNS and the proxy's
  // port go there and nowhere else on the host). Not tied to the gateway's address, which changes
  // when the network is made again.
  const accept = (protocol: string, port: number, note: string): FirewallRule => ({
    chain: "INPUT",
    optional: false,
    spec: ["-i", bridge, "-p", protocol, "--dport", String(port)]
      .concat(["-m", "comment", "--comment", note])
      .concat(["-j", "ACCEPT"]),
  });
  const dns: FirewallRule[] = resolver
    ? [accept("udp", 53, RESOLVER_COMMENT), accept("tcp", PROXY_PORT, PROXY_COMMENT)]
    : [];
  return [
    {
      chain: "INPUT",
      optional: false,
      spec: ["-i", bridge, "-m", "conntrack", "!", "--ctstate", "ESTABLISHED,RELATED"]
        .concat(comment)
        .concat(REJECT),
    },
    {
      chain: "DOCKER-USER",
      optional: true,
      spec: ["-i", bridge, "-d", "169.254.0.0/16"].concat(comment).concat(REJECT),
    },
    ...dns,
  ];
}

/**
 * Adds the rules for one bridge, once (checked first, so repeated calls add nothing). Resolves
 * with null when the host is protected, otherwise with why not.
 */
export async function protectHostFrom(bridge: string, resolver = false): Promise<string | null> {
  if (!existsSync(`/sys/class/net/${bridge}`)) {
    return `bridge ${bridge} is not in this process's network namespace (a remote daemon, or the control plane runs in a container)`;
  }
  for (const rule of firewallRulesFor(bridge, resolver)) {
    if (rule.optional && (await iptables(["-S", rule.chain])).code !== 0) continue;
    const check = await iptables(["-C", rule.chain, ...rule.spec]);
    if (check.code === 0) continue;
    const insert = await iptables(["-I", rule.chain, "1", ...rule.spec]);
    if (insert.code !== 0) return `iptables refused a ${rule.chain} rule: ${insert.output}`;
  }
  return null;
}

/** Takes the rules of a bridge away again (all copies); a rule that is not there is fine. */
export async function unprotectHostFrom(bridge: string): Promise<void> {
  for (const rule of firewallRulesFor(bridge, true)) {
    for (let attempt = 0; attempt < 10; attempt++) {
      if ((await iptables(["-D", rule.chain, ...rule.spec])).code !== 0) break;
    }
  }
}

/** The rule an operator adds by hand where the runtime cannot (shown in warnings). */
export function describeFirewallRule(bridge: string): string {
  const [rule] = firewallRulesFor(bridge);
  const spec = (rule?.spec ?? []).map((part) => (/\s/.test(part) ? `"${part}"` : part));
  return `iptables -I INPUT 1 ${spec.join(" ")}`;
}

interface IptablesResult {
  /** Exit code; -1 when iptables could not be run at all. */
  code: number;
  output: string;
}

function iptables(args: string[]): Promise<IptablesResult> {
  return new Promise((resolve) => {
    // -w: wait for the xtables lock dockerd may hold instead of failing at once.
    execFile("iptables", ["-w", "5", ...args], { timeout: 15_000 }, (error, stdout, stderr) => {
      const output = `${stderr}${stdout}`.trim();
      if (error === null) return resolve({ code: 0, output });
      const code = typeof error.code === "number" ? error.code : -1;
      resolve({ code, output: output || error.message });
    });
  });
}
