import { readFileSync } from "node:fs";
import { firstLine, run } from "../isolation/detect-bwrap";

/** The host's end of each sandbox's veth pair is `ssnv<i>` (veth-link.ts). */
export const VETH_PREFIX = "ssnv";

let vethSupport: { usable: true } | { usable: false; reason: string } | null = null;

/**
 * Whether the veth data path works here (once per process): forwarding on (Docker turns it on;
 * the runtime does not change it for the whole host), and a trial pair in a trial namespace made
 * and removed.
 */
export function detectVeth(tools: {
  ip: string;
}): { usable: true } | { usable: false; reason: string } {
  vethSupport ??= probeVeth(tools.ip);
  return vethSupport;
}

function probeVeth(ip: string): { usable: true } | { usable: false; reason: string } {
  let forwarding = "";
  try {
    forwarding = readFileSync("/proc/sys/net/ipv4/ip_forward", "utf8").trim();
  } catch {
    forwarding = "";
  }
  if (forwarding !== "1") {
    return { usable: false, reason: "IPv4 forwarding is off (net.ipv4.ip_forward)" };
  }
  const name = `ssn-vprobe-${process.pid}`;
  const trial = run("/bin/sh", [
    "-c",
    `"$0" netns add "$1" && "$0" link add "$2" type veth peer name eth0 netns "$1"; status=$?; "$0" link del "$2" 2>/dev/null; "$0" netns del "$1"; exit $status`,
    ip,
    name,
    `${VETH_PREFIX}p${process.pid % 100_000}`,
  ]);
  if (!trial.ok)
    return { usable: false, reason: `a veth pair cannot be made: ${firstLine(trial)}` };
  return { usable: true };
}
