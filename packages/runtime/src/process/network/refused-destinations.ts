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

/** A destination the ruleset refused recently. */
export interface RefusedDestination {
  address: string;
  port: number;
  /**
   * The packets refused to it since its element was made: one per TCP connect (refused by a
   * reset at once, so never sent again) and one per UDP datagram. 1 for a table without counters
   * (made by an earlier version and kept: an adopted container's).
   */
  packets: number;
  /** Whole seconds its element lives at least (each refusal extends it); null if it never expires. */
  expires: number | null;
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
      const elem = (item as { elem?: RefusedElement }).elem;
      const [address, port] = elem?.val?.concat ?? [];
      if (typeof address === "string" && typeof port === "number") {
        const packets = elem?.counter?.packets ?? 1;
        found.push({ address, port, packets, expires: elem?.expires ?? null });
      }
    }
  }
  return found;
}

const REFUSED_SETS = new Set(["refused4", "refused6"]);

/** An element of a refused set, as `nft -j` prints it. */
interface RefusedElement {
  val?: { concat?: [string, number] };
  counter?: { packets?: number };
  expires?: number;
}

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

/** How many denials of one sandbox are reported per minute (the rest are not passed on). */
const DENIALS_PER_MINUTE = 20;

/** A destination's counter as last read. */
interface ReadCount {
  packets: number;
  /** Until when (ms) the element read lives at most unless refused again; before, it is the same. */
  livesUntil: number;
}

/** Margin on an element's `expires`: nft prints whole seconds; the read is timed after nft's answer. */
const EXPIRES_MARGIN_MS = 2_000;

/** Passes denials on to the listeners, at most DENIALS_PER_MINUTE per sandbox. */
export class DenialReporter {
  private readonly listeners: ((denial: EgressDenial) => void)[] = [];
  private readonly windows = new Map<string, { minute: number; count: number }>();
  /** Per sandbox, each refused destination's counter as last read. */
  private readonly reported = new Map<string, Map<string, ReadCount>>();

  constructor(
    private readonly onError: (sandboxId: string, error: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  listen(listener: (denial: EgressDenial) => void): void {
    this.listeners.push(listener);
  }

  /** Passes on `times` denials like this one (as many as the sandbox's minute has room for). */
  report(denial: EgressDenial, times = 1): void {
    const minute = Math.floor(denial.at.getTime() / 60_000);
    const seen = this.windows.get(denial.sandboxId);
    const before = seen?.minute === minute ? seen.count : 0;
    this.windows.set(denial.sandboxId, { minute, count: before + times });
    const passed = Math.min(times, DENIALS_PER_MINUTE - before);
    for (let i = 0; i < passed; i++) {
      for (const listener of this.listeners) {
        try {
          listener(denial);
        } catch (error) {
          this.onError(denial.sandboxId, error);
        }
      }
    }
  }

  /**
   * Reports each destination's packets refused since the last read, one denial per packet (see
   * `RefusedDestination.packets`: a TCP connect, or a UDP datagram). A counter only grows while
   * its element lives; an element read past the time it surely lived may have expired and come
   * back counting from zero: a count no higher than before is then a new element's, all of it
   * new. (A higher one is taken as growth: a destination that went quiet for ten minutes
   * between two reads and came back with more refusals than before is undercounted by the old
   * count.)
   */
  reportRefused(
    sandboxId: string,
    refused: RefusedDestination[],
    policy: SandboxEgressPolicy,
  ): void {
    const previous = this.reported.get(sandboxId) ?? new Map<string, ReadCount>();
    const current = new Map<string, ReadCount>();
    const now = this.now();
    for (const { address, port, packets, expires } of refused) {
      const destination = destinationOf(address, port);
      const livesUntil =
        expires === null ? Number.POSITIVE_INFINITY : now + expires * 1000 + EXPIRES_MARGIN_MS;
      current.set(destination, { packets, livesUntil });
      const before = previous.get(destination);
      const renewed =
        before !== undefined &&
        (packets < before.packets || (now >= before.livesUntil && packets === before.packets));
      const grown = before === undefined || renewed ? packets : packets - before.packets;
      if (grown <= 0) continue;
      const at = new Date(now);
      this.report({ sandboxId, destination, rule: refusingRule(address, policy), at }, grown);
    }
    this.reported.set(sandboxId, current);
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
