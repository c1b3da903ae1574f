import { createSocket, type Socket } from "node:dgram";
import { lookup } from "node:dns/promises";
import {
  addressBytes,
  addressInCidr,
  classifyAddress,
  classifyName,
  type EgressDenial,
  type EgressTarget,
  type OperatorEgressPolicy,
  type SandboxEgressPolicy,
} from "@sandbox-server/egress";
import { errorMessage } from "../../error-message";
import type { RuntimeLogger } from "../../types";
import type { UsableNetns } from "./detect-netns";
import { buildAnswer, DNS_TYPE, parseQuery, RCODE } from "./dns-message";
import { EGRESS_TABLE, type NameSet, nameSetOf, RESOLVED_TIMEOUT_S } from "./egress-ruleset";
import { addSetElements } from "./sandbox-network";

/** What the resolver needs of a sandbox at the time of a query. */
export interface ResolverContext {
  policy: SandboxEgressPolicy;
  /** A name an allow_out rule matches opens a non-public address only where this opens it too. */
  operator: OperatorEgressPolicy;
  /** Its namespace (a name, or a path), where learnt addresses go into the name rules' sets. */
  netns: string;
}

/**
 * Lookups in flight, for all sandboxes and for one: getaddrinfo runs on libuv's thread pool (4
 * threads), which the control plane's file I/O shares, so a sandbox that floods its resolver gets
 * SERVFAIL rather than the control plane's threads.
 */
const LOOKUPS_IN_FLIGHT = 3;
const LOOKUPS_PER_SANDBOX = 4;
const LOOKUPS_QUEUED = 256;

type Decision =
  | { answer: true; sets: { set: "allow" | "deny"; port: number | null }[] }
  | { answer: false; rule: string };

/**
 * The resolver of every sandbox with a network of its own: one UDP socket per sandbox, on the
 * host's 127.0.0.1 (pasta forwards the sandbox's 127.0.0.1:53 to it, so the socket says which
 * sandbox asks) or on port 53 of the host's end of its veth pair (answering its namespace's
 * address only). A name resolves as the host resolves it (getaddrinfo: /etc/hosts, then DNS);
 * before the answer goes out, its addresses go into the sets of the host rules it matches (with a
 * timeout), so the ruleset lets them through or refuses them as the rule says. A name refused
 * outright (metadata, `deny_out` for every port, nothing allowed without `allow_internet`) is
 * answered NXDOMAIN (REFUSED makes the C library retry, then fail as a temporary error) and
 * reported as a denial (to a reporter that limits how many). Idle, it costs nothing: no timers, only sockets.
 */
export class SandboxResolver {
  private readonly sockets = new Map<string, Socket>();
  /** Per sandbox, `<set> <element>` → when it was last added (not again within half its timeout). */
  private readonly added = new Map<string, Map<string, number>>();
  private inFlight = 0;
  private readonly queue: (() => void)[] = [];
  private readonly perSandbox = new Map<string, number>();

  constructor(
    private readonly tools: UsableNetns,
    private readonly contextOf: (sandboxId: string) => ResolverContext | null,
    private readonly onDenied: (denial: EgressDenial) => void,
    private readonly logger: RuntimeLogger,
    private readonly resolveName: (name: string) => Promise<string[] | null> = lookupAddresses,
  ) {}

  /**
   * The sandbox's socket (bound now, or kept from an earlier run); `port` re-binds an adopted
   * one's; `host` is where it listens (the host's end of the sandbox's veth pair, if it has one),
   * answering only queries from `peer` (the namespace's address: another program on the host, a
   * container or a LAN reaching that address is not the sandbox, and gets no answer).
   */
  async open(sandboxId: string, port = 0, host = "127.0.0.1", peer?: string): Promise<number> {
    const known = this.sockets.get(sandboxId);
    if (known) return known.address().port;
    const socket = createSocket("udp4");
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, host, () => {
        socket.off("error", reject);
        resolve();
      });
    });
    socket.on("error", (error) =>
      this.logger.warn({ sandboxId, err: error }, "resolver socket error"),
    );
    socket.on("message", (message, from) => {
      if (peer !== undefined && from.address !== peer) return;
      void this.answer(sandboxId, message).then((reply) => {
        if (reply) socket.send(reply, from.port, from.address);
      });
    });
    socket.unref();
    this.sockets.set(sandboxId, socket);
    return socket.address().port;
  }

  close(sandboxId: string): void {
    this.sockets.get(sandboxId)?.close();
    this.sockets.delete(sandboxId);
    this.added.delete(sandboxId);
  }

  /** The sandbox's ruleset was replaced, its sets emptied: addresses must be added again. */
  rulesetReplaced(sandboxId: string): void {
    this.added.delete(sandboxId);
  }

  closeAll(): void {
    for (const id of [...this.sockets.keys()]) this.close(id);
  }

  /** The reply to one query of the sandbox (null: not a query); for sockets held elsewhere too. */
  async answer(sandboxId: string, message: Buffer): Promise<Buffer | null> {
    const query = parseQuery(message);
    const context = this.contextOf(sandboxId);
    if (query === null) return null;
    if (context === null) return buildAnswer(query, RCODE.REFUSED);
    try {
      const decision = decideName(query.name, context.policy);
      if (!decision.answer) {
        this.deny(sandboxId, query.name, decision.rule);
        return buildAnswer(query, RCODE.NXDOMAIN);
      }
      const found = await this.limited(sandboxId, () => this.resolveName(query.name));
      if (found === "busy") return buildAnswer(query, RCODE.SERVFAIL);
      const addresses = found?.filter((a) => classifyAddress(a) !== "metadata") ?? null;
      if (addresses === null) return buildAnswer(query, RCODE.NXDOMAIN);
      if (!context.policy.allowInternet && decision.sets.length === 0) {
        // Reachable only through an allow_out CIDR; otherwise not at all.
        const allowed = addresses.some((a) => coveredByCidr(a, context.policy.allowOut));
        if (!allowed) {
          this.deny(sandboxId, query.name, "allow_internet false");
          return buildAnswer(query, RCODE.NXDOMAIN);
        }
      }
      await this.addToSets(sandboxId, context, addresses, decision.sets);
      const family = query.type === DNS_TYPE.A ? 4 : query.type === DNS_TYPE.AAAA ? 6 : null;
      const answers = addresses.filter((a) => familyOf(a) === family).map(addressBytes);
      return buildAnswer(query, RCODE.NOERROR, answers);
    } catch (error) {
      this.logger.warn(
        { sandboxId, name: query.name, reason: errorMessage(error) },
        "lookup failed",
      );
      return buildAnswer(query, RCODE.SERVFAIL);
    }
  }

  /**
   * The name's addresses as the sandbox's queries get them, within the same limits (the egress
   * proxy's lookups share them); rejects when the sandbox has too many in flight.
   */
  async lookup(sandboxId: string, name: string): Promise<string[] | null> {
    const found = await this.limited(sandboxId, () => this.resolveName(name));
    if (found === "busy") throw new Error("too many lookups in flight");
    return found;
  }

  /** Runs `lookup` within the limits, or says `busy`. */
  private async limited<T>(sandboxId: string, lookup: () => Promise<T>): Promise<T | "busy"> {
    const mine = this.perSandbox.get(sandboxId) ?? 0;
    if (mine >= LOOKUPS_PER_SANDBOX || this.queue.length >= LOOKUPS_QUEUED) return "busy";
    this.perSandbox.set(sandboxId, mine + 1);
    try {
      if (this.inFlight >= LOOKUPS_IN_FLIGHT) {
        await new Promise<void>((resolve) => this.queue.push(resolve));
      }
      this.inFlight += 1;
      try {
        return await lookup();
      } finally {
        this.inFlight -= 1;
        this.queue.shift()?.();
      }
    } finally {
      const left = (this.perSandbox.get(sandboxId) ?? 1) - 1;
      if (left === 0) this.perSandbox.delete(sandboxId);
      else this.perSandbox.set(sandboxId, left);
    }
  }

  /** Adds the addresses to the name rules' sets (one nft transaction), skipping fresh ones. */
  private async addToSets(
    sandboxId: string,
    context: ResolverContext,
    addresses: string[],
    sets: { set: "allow" | "deny"; port: number | null }[],
  ): Promise<void> {
    const { netns, operator } = context;
    const now = Date.now();
    const added = this.added.get(sandboxId) ?? new Map<string, number>();
    this.added.set(sandboxId, added);
    const commands: string[] = [];
    for (const { set: list, port } of sets) {
      for (const address of addresses) {
        // A name cannot open what the operator keeps closed (DNS rebinding, `*.nip.io`): such an
        // address is left to the ranges' rules, which refuse it.
        if (list === "allow" && !operatorOpens(operator, address, port)) continue;
        const set: NameSet = nameSetOf(list, port, familyOf(address));
        const element = port === null ? address : `${address} . ${port}`;
        const key = `${set} ${element}`;
        if ((added.get(key) ?? 0) > now - (RESOLVED_TIMEOUT_S * 1000) / 2) continue;
        added.set(key, now);
        commands.push(
          `add element inet ${EGRESS_TABLE} ${set} { ${element} timeout ${RESOLVED_TIMEOUT_S}s }`,
        );
      }
    }
    if (commands.length > 0) await addSetElements(this.tools, netns, `${commands.join("\n")}\n`);
  }

  /** Reports a denial (the reporter limits how many). */
  private deny(sandboxId: string, name: string, rule: string): void {
    this.logger.info({ sandboxId, destination: name, rule }, "egress denied");
    this.onDenied({ sandboxId, destination: `${name}:53`, rule, at: new Date() });
  }
}

/**
 * What a name's rules say before it is looked up (EgressDecision's rules for names): metadata
 * names refused; the allow_out host rules it matches, then the deny_out ones (refused outright
 * when one holds for every port and no allow_out rule matched).
 */
export function decideName(name: string, policy: SandboxEgressPolicy): Decision {
  const named = classifyName(name);
  if (named === "metadata") return { answer: false, rule: "metadata" };
  if (named !== null) return { answer: false, rule: `${named} name` };
  const allow = policy.allowOut.filter((t) => nameMatches(t, name));
  const deny = policy.denyOut.filter((t) => nameMatches(t, name));
  if (allow.length === 0 && deny.some((t) => t.port === null)) {
    const rule = deny.find((t) => t.port === null) as EgressTarget & { kind: "host" };
    return { answer: false, rule: `deny_out ${rule.wildcard ? "*." : ""}${rule.name}` };
  }
  return {
    answer: true,
    sets: [
      ...allow.map((t) => ({ set: "allow" as const, port: t.port })),
      ...deny.map((t) => ({ set: "deny" as const, port: t.port })),
    ],
  };
}

function nameMatches(target: EgressTarget, name: string): boolean {
  if (target.kind !== "host") return false;
  return target.wildcard ? name.endsWith(`.${target.name}`) : name === target.name;
}

function coveredByCidr(address: string, targets: EgressTarget[]): boolean {
  return targets.some((t) => t.kind === "cidr" && addressInCidr(address, t.cidr));
}

/** The name's addresses as the host resolves them; null: no such name. */
export async function lookupAddresses(name: string): Promise<string[] | null> {
  try {
    const found = await lookup(name, { all: true, verbatim: true });
    return found.map((entry) => entry.address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTFOUND" || code === "ENODATA") return null;
    throw error;
  }
}

function familyOf(address: string): 4 | 6 {
  return address.includes(":") ? 6 : 4;
}

/** Whether `address` (at `port`, or any port) is public, or non-public but opened by the operator. */
function operatorOpens(operator: OperatorEgressPolicy, address: string, port: number | null) {
  if (classifyAddress(address) === "public") return true;
  return operator.allow.some(
    (target) =>
      target.kind === "cidr" &&
      addressInCidr(address, target.cidr) &&
      (target.port === null || target.port === port),
  );
}
