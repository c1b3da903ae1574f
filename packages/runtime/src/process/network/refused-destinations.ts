import {
  addressInCidr,
  classifyAddress,
  type EgressDenial,
  formatEgressTarget,
  type SandboxEgressPolicy,
} from "@sandbox-server/egress";
import type { UsableNetns } from "./detect-netns";
import { EGRESS_TABLE } from "./egress-ruleset";
import { listSets } from "./sandbox-network";

/** A destination the ruleset refused recently, with how many packets it refused. */
export interface RefusedDestination {
  address: string;
  port: number;
  packets: number;
}

/**
 * The destinations the namespace's ruleset refused in the last ten minutes (its `refused4` and
 * `refused6` sets, address . port with a packet counter each). Read on demand: one `nft` call
 * for both sets (each is a fork of the control plane, which a busy pull pays per sandbox).
 */
export async function readRefused(
  tools: UsableNetns,
  netns: string,
): Promise<RefusedDestination[]> {
  const found: RefusedDestination[] = [];
  const parsed = JSON.parse(await listSets(tools, netns)) as {
    nftables?: { set?: { table?: string; name?: string; elem?: unknown[] } }[];
  };
  for (const entry of parsed.nftables ?? []) {
    const set = entry.set;
    if (set?.table !== EGRESS_TABLE || !REFUSED_SETS.has(set.name ?? "")) continue;
    for (const item of set.elem ?? []) {
      const elem = (
        item as { elem?: { val?: { concat?: [string, number] }; counter?: { packets?: number } } }
      ).elem;
      const [address, port] = elem?.val?.concat ?? [];
      if (typeof address === "string" && typeof port === "number") {
        found.push({ address, port, packets: elem?.counter?.packets ?? 1 });
      }
    }
  }
  return found;
}

const REFUSED_SETS = new Set(["refused4", "refused6"]);

/** Which of the policy's rules refused a connection to this address (EgressDecision's order). */
export function refusingRule(address: string, policy: SandboxEgressPolicy): string {
  const kind = classifyAddress(address);
  if (kind === "metadata") return "metadata";
  const denied = policy.denyOut.find((t) => t.kind === "cidr" && addressInCidr(address, t.cidr));
  // As the API shows the entry (a single address without /32), as `decideEgress` names it.
  if (denied) return `deny_out ${formatEgressTarget(denied)}`;
  if (kind !== "public") return `${kind === "private" ? "private" : "non-public"} range (${kind})`;
  return policy.allowInternet ? "deny_out (a host rule)" : "allow_internet false";
}

/** `address:port`, IPv6 in brackets. */
export function destinationOf(address: string, port: number): string {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

/** How many denials of one sandbox are reported per minute (the rest are only logged as a count). */
const DENIALS_PER_MINUTE = 20;

/** Passes denials on to the listeners, at most DENIALS_PER_MINUTE per sandbox. */
export class DenialReporter {
  private readonly listeners: ((denial: EgressDenial) => void)[] = [];
  private readonly windows = new Map<string, { minute: number; count: number }>();
  /** Per sandbox, the refused packets already reported per destination (from the counters). */
  private readonly reported = new Map<string, Map<string, number>>();

  constructor(private readonly onError: (sandboxId: string, error: unknown) => void) {}

  listen(listener: (denial: EgressDenial) => void): void {
    this.listeners.push(listener);
  }

  report(denial: EgressDenial): void {
    const minute = Math.floor(denial.at.getTime() / 60_000);
    const seen = this.windows.get(denial.sandboxId);
    const count = seen?.minute === minute ? seen.count + 1 : 1;
    this.windows.set(denial.sandboxId, { minute, count });
    if (count > DENIALS_PER_MINUTE) return;
    for (const listener of this.listeners) {
      try {
        listener(denial);
      } catch (error) {
        this.onError(denial.sandboxId, error);
      }
    }
  }

  /** Reports each refused destination whose counter grew since the last read. */
  reportRefused(
    sandboxId: string,
    refused: RefusedDestination[],
    policy: SandboxEgressPolicy,
  ): void {
    const previous = this.reported.get(sandboxId) ?? new Map<string, number>();
    const now = new Map<string, number>();
    for (const { address, port, packets } of refused) {
      const destination = destinationOf(address, port);
      now.set(destination, packets);
      if (packets > (previous.get(destination) ?? 0)) {
        this.report({
          sandboxId,
          destination,
          rule: refusingRule(address, policy),
          at: new Date(),
        });
      }
    }
    this.reported.set(sandboxId, now);
  }

  /** The sandbox's ruleset was replaced: its counters start again. */
  resetCounters(sandboxId: string): void {
    this.reported.delete(sandboxId);
  }

  /** The sandbox is gone. */
  forget(sandboxId: string): void {
    this.reported.delete(sandboxId);
    this.windows.delete(sandboxId);
  }
}
