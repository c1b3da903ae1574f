import { findOnPath, firstLine, run } from "../isolation/detect-bwrap";
import { detectVeth } from "./detect-veth";

/** The tools a network namespace per sandbox needs, found and proven to work here. */
export interface UsableNetns {
  usable: true;
  ip: string;
  nft: string;
  nsenter: string;
  /** Empty when not installed (the veth data path does without it). */
  pasta: string;
  /** For Docker's DOCKER-USER chain on the veth data path; absent: none to mend. */
  iptables?: string | null;
}

export type NetnsSupport = UsableNetns | { usable: false; reason: string };

let cached: NetnsSupport | null = null;

/**
 * Whether each process sandbox can get a network namespace of its own here: root (the namespace
 * is created in, and owned by, the initial user namespace, so nothing inside can change its
 * firewall), `ip`, `nft` and `nsenter` installed, and a trial namespace with a ruleset made and
 * removed. pasta is looked for too; whether a data path (veth or pasta) works is `chooseLink`'s. Synchronous and once per process, like detectBwrap.
 */
export function detectNetns(): NetnsSupport {
  cached ??= probe();
  return cached;
}

function probe(): NetnsSupport {
  if (process.getuid?.() !== 0) {
    return { usable: false, reason: "the control plane is not root (network namespaces need it)" };
  }
  const tools = { ip: "iproute2", nft: "nftables", nsenter: "util-linux" };
  const found: Record<string, string> = {};
  for (const [tool, pkg] of Object.entries(tools)) {
    const path = findOnPath(tool);
    if (path === null)
      return { usable: false, reason: `${tool} (Debian package ${pkg}) is not installed` };
    found[tool] = path;
  }
  const name = `ssn-probe-${process.pid}`;
  const trial = run("/bin/sh", [
    "-c",
    'ip netns add "$1" && nsenter --net="/run/netns/$1" sh -c "ip link set lo up && echo \'table inet probe {}\' | nft -f -"; status=$?; ip netns del "$1"; exit $status',
    "probe",
    name,
  ]);
  if (!trial.ok) {
    return {
      usable: false,
      reason: `a network namespace with nftables cannot be made here: ${firstLine(trial)}`,
    };
  }
  return {
    usable: true,
    ip: found.ip as string,
    nft: found.nft as string,
    nsenter: found.nsenter as string,
    pasta: findOnPath("pasta") ?? "",
    iptables: findOnPath("iptables"),
  };
}

/**
 * How a sandbox's namespace reaches out: `veth` (a veth pair, routed and masqueraded by the
 * host's kernel) or `pasta` (a user-space process per sandbox that copies every byte).
 */
export type NetnsLink = "veth" | "pasta";

/** `auto` takes veth where it works here, else pasta. */
export type NetnsLinkChoice = "auto" | NetnsLink;

/** The data path to use, or why none can be. */
export function chooseLink(
  tools: UsableNetns,
  choice: NetnsLinkChoice,
): { usable: true; link: NetnsLink } | { usable: false; reason: string } {
  const veth = choice === "pasta" ? null : detectVeth(tools);
  if (veth?.usable) return { usable: true, link: "veth" };
  if (choice === "veth") return { usable: false, reason: veth?.reason ?? "veth not usable" };
  if (tools.pasta !== "") return { usable: true, link: "pasta" };
  return {
    usable: false,
    reason: `pasta (Debian package passt) is not installed${veth ? `, and ${veth.reason}` : ""}`,
  };
}
