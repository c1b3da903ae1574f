import { existsSync } from "node:fs";
import type {
  EgressDenial,
  OperatorEgressPolicy,
  SandboxEgressPolicy,
} from "@sandbox-server/egress";
import { errorMessage } from "../../error-message";
import type { RuntimeLogger } from "../../types";
import type { RunNetwork } from "../launch-run";
import type { SandboxRecord } from "../sandbox-record";
import { detectNetns, type NetnsLink, type UsableNetns } from "./detect-netns";
import { EgressProxy } from "./egress-proxy";
import {
  compileEgressRuleset,
  type LoopbackForward,
  loopbackForwardsOf,
  PROXY_PORT,
  RESOLVER_PORT,
} from "./egress-ruleset";
import { NetnsPool } from "./netns-pool";
import { removePoolLeftovers } from "./pool-leftovers";
import { RefusalGate } from "./refusal-gate";
import { DenialReporter, readRefused } from "./refused-destinations";
import {
  applyRuleset,
  createNetns,
  netnsNameFor,
  netnsPathOf,
  removeNetns,
} from "./sandbox-network";
import { SandboxResolver } from "./sandbox-resolver";
import { createNetnsWithVeth, ensureHostRules, hostAddressOf } from "./veth-link";

const HOST_RULES_MEND_MS = 60_000;

export interface SandboxNetworksOptions {
  rootDir: string;
  /** The namespace tools; null when sandboxes share the host's network. */
  tools: UsableNetns | null;
  /** How the namespaces reach out (with tools). */
  link: NetnsLink | null;
  operator: OperatorEgressPolicy;
  logger: RuntimeLogger;
  /** The runtime's record of a sandbox it knows now (the resolver asks at each query). */
  recordOf: (sandboxId: string) => SandboxRecord | undefined;
  resolveName: ((name: string) => Promise<string[] | null>) | null;
}

/**
 * ProcessRuntime's network duties for sandboxes with a network of their own: each one's
 * namespace, ruleset, resolver and denial reports, at the points of a sandbox's life where the
 * runtime calls in (register, launch, policy change, adoption, delete, close). With no
 * tools (the host's network) most calls do nothing.
 */
export class SandboxNetworks {
  private readonly tools: UsableNetns | null;
  private readonly operator: OperatorEgressPolicy;
  private readonly logger: RuntimeLogger;
  private readonly denials: DenialReporter;
  private readonly gate = new RefusalGate();
  private readonly resolver: SandboxResolver | null;
  private readonly proxy: EgressProxy | null;
  private readonly pool: NetnsPool | null;
  private readonly link: NetnsLink | null;
  /** The latest writing of the host's rules for veth pairs (at start; the pool mends them). */
  private hostRules: Promise<void> | null;
  /** When the host's rules were last written (the pool mends them at most once a minute). */
  private hostRulesAt = 0;

  constructor(options: SandboxNetworksOptions) {
    this.tools = options.tools;
    this.operator = options.operator;
    this.logger = options.logger;
    this.denials = new DenialReporter((sandboxId, error) =>
      this.logger.error({ sandboxId, err: error }, "egress denial listener failed"),
    );
    this.resolver = options.tools
      ? new SandboxResolver(
          options.tools,
          (sandboxId) => {
            const record = options.recordOf(sandboxId);
            return record?.netns
              ? { policy: record.egress, operator: this.operator, netns: record.netns }
              : null;
          },
          (denial) => this.denials.report(denial),
          this.logger,
          options.resolveName ?? undefined,
        )
      : null;
    const { tools } = options;
    this.link = tools ? options.link : null;
    const forwards = loopbackForwardsOf(this.operator);
    this.hostRulesAt = Date.now();
    this.hostRules = tools && this.link === "veth" ? ensureHostRules(tools, forwards) : null;
    this.hostRules?.catch((error: unknown) =>
      this.logger.error({ err: error }, "host rules for sandbox veth pairs not set"),
    );
    // An operator exception on the proxy's port keeps that port (pasta cannot forward it twice,
    // and with veth the host carries it to the operator's service).
    const proxied = !forwards.some((f) => f.port === PROXY_PORT);
    const resolver = this.resolver;
    this.proxy =
      resolver && proxied
        ? new EgressProxy(
            (sandboxId) => {
              const record = options.recordOf(sandboxId);
              if (!record?.netns) return null;
              const { operator } = this;
              return {
                policy: record.egress,
                operator,
                loopbackForwards: loopbackForwardsOf(operator),
              };
            },
            (denial) => this.denials.report(denial),
            this.logger,
            (sandboxId, name) => resolver.lookup(sandboxId, name),
          )
        : null;
    this.pool = tools
      ? new NetnsPool(
          tools,
          options.rootDir,
          this.logger,
          (name) => this.makeNetns(tools, name),
          this.link === "veth" ? () => this.mendHostRules(tools, forwards) : undefined,
        )
      : null;
    // What an earlier control plane killed before its close left in its pool goes first.
    if (tools && this.pool) {
      const pool = this.pool;
      void removePoolLeftovers(tools, options.rootDir, this.logger).finally(() => pool.fill());
    }
  }

  onDenied(listener: (denial: EgressDenial) => void): void {
    this.denials.listen(listener);
  }

  /**
   * The sandbox's namespace, before its first launch (at register, or by that launch): one from
   * the pool, else one made now (named after its directory). Sets `record.netns`; the promise
   * settles once the namespace is there (false: it could not be made; the launch tries again).
   */
  prepare(record: SandboxRecord): Promise<boolean> | null {
    const { tools } = this;
    if (tools === null || record.netns !== null) return null;
    const pooled = this.pool?.take() ?? null;
    record.netns = pooled?.name ?? netnsNameFor(record.paths.dir);
    record.netnsAddress = pooled?.address ?? null;
    if (pooled) return Promise.resolve(true);
    return this.makeNetns(tools, record.netns).then(
      (address) => {
        record.netnsAddress = address;
        return true;
      },
      (error: unknown) => {
        this.logger.warn(
          { sandboxId: record.sandboxId, reason: errorMessage(error) },
          "network namespace not made",
        );
        return false;
      },
    );
  }

  /**
   * How the sandbox's next run gets its own network, or null on the host's. The run applies the
   * ruleset afresh: its sets and counters start empty.
   */
  async forLaunch(record: SandboxRecord): Promise<RunNetwork | null> {
    const { tools, resolver } = this;
    if (tools === null || resolver === null) return null;
    this.rulesetReplaced(record.sandboxId);
    record.preparedNetns ??= this.prepare(record);
    const namespace = record.netns ?? netnsNameFor(record.paths.dir);
    const ruleset = this.rulesetOf(record.egress);
    const forwards = loopbackForwardsOf(this.operator);
    if (this.link !== "veth") {
      const resolverPort = await resolver.open(record.sandboxId);
      const proxyPort = await this.openProxy(record.sandboxId);
      return {
        tools,
        link: "pasta",
        namespace,
        address: null,
        ruleset,
        resolverPort,
        proxyPort,
        forwards,
      };
    }
    // The agent server listens on the namespace's address, the resolver and the proxy on the
    // host's end of its pair: all must be known before the launch. A relaunch finds the pair in
    // place (or makes it again, after the machine restarted: perhaps at another address).
    const prepared = record.preparedNetns;
    record.preparedNetns = null;
    const made = prepared ? await prepared : false;
    if (!made || record.netnsAddress === null) {
      record.netnsAddress = await this.makeVeth(tools, namespace);
    }
    const address = record.netnsAddress;
    const host = hostAddressOf(address);
    resolver.close(record.sandboxId);
    this.proxy?.close(record.sandboxId);
    const resolverPort = await resolver.open(record.sandboxId, RESOLVER_PORT, host, address);
    const proxyPort = await this.openProxy(record.sandboxId, { host, peer: address });
    return { tools, link: "veth", namespace, address, ruleset, resolverPort, proxyPort, forwards };
  }

  /**
   * Sets the record's policy and, while it has its namespace, replaces its ruleset in one
   * transaction (what the old one refused is reported first, under the old policy). Says whether
   * it is enforced.
   */
  async setPolicy(record: SandboxRecord, policy: SandboxEgressPolicy): Promise<boolean> {
    const live = this.tools !== null && record.netns !== null && record.exitDetail === null;
    if (live) await this.reportRefused(record);
    record.egress = policy;
    if (this.tools && record.netns && live) {
      await applyRuleset(this.tools, record.netns, this.rulesetOf(policy));
      this.rulesetReplaced(record.sandboxId);
    }
    return live;
  }

  /**
   * Reports the destinations the ruleset refused since the last read (one `nft` call); says
   * whether it read them.
   */
  async reportRefused(record: SandboxRecord): Promise<boolean> {
    if (this.tools === null || record.netns === null) return false;
    try {
      const refused = await readRefused(this.tools, record.netns);
      this.denials.reportRefused(record.sandboxId, refused, record.egress);
      return true;
    } catch (error) {
      this.logger.debug(
        { sandboxId: record.sandboxId, reason: errorMessage(error) },
        "refused destinations not read",
      );
      return false;
    }
  }

  /**
   * `reportRefused` for the control plane's periodic pull: skipped while the namespace's counters
   * say nothing was refused since this pull last read (RefusalGate).
   */
  async pullRefused(record: SandboxRecord): Promise<void> {
    if (this.tools === null || record.netns === null) return;
    const pid = record.run?.pid ?? null;
    const path = netnsPathOf(record.netns);
    await this.gate.pass(record.sandboxId, path, pid, () => this.reportRefused(record));
  }

  /**
   * An adopted sandbox's pasta still forwards to its resolver's and proxy's ports, or its
   * namespace still sends DNS and proxy requests to the host's end of its veth pair: listen
   * there again.
   */
  adopt(record: SandboxRecord): void {
    const address = record.netnsAddress;
    // Where each listens, and whom it answers: the pair's host end, the namespace's address.
    const at: [string, string] | [] = address ? [hostAddressOf(address), address] : [];
    if (this.proxy && record.netns !== null && record.proxyPort !== null) {
      this.proxy
        .open(record.sandboxId, record.proxyPort, ...at)
        .catch((error: unknown) =>
          this.logger.warn(
            { sandboxId: record.sandboxId, port: record.proxyPort, reason: errorMessage(error) },
            "sandbox egress proxy not reopened: its proxy clients fail until it is relaunched",
          ),
        );
    }
    if (this.resolver === null || record.netns === null || record.resolverPort === null) return;
    this.resolver
      .open(record.sandboxId, record.resolverPort, ...at)
      .catch((error: unknown) =>
        this.logger.warn(
          { sandboxId: record.sandboxId, port: record.resolverPort, reason: errorMessage(error) },
          "sandbox resolver not reopened: names do not resolve in it until it is relaunched",
        ),
      );
  }

  /**
   * Removes the namespace of the sandbox in `dir` (its processes, pasta among them, are gone;
   * its veth pair goes with it).
   * Also without tools, when the namespace exists: a runtime on the host's network sweeping
   * sandboxes an earlier one made (the name is the directory's, recorded or not).
   */
  async remove(sandboxId: string, record: SandboxRecord | null, dir: string): Promise<void> {
    this.resolver?.close(sandboxId);
    this.proxy?.close(sandboxId);
    this.denials.forget(sandboxId);
    this.gate.forget(sandboxId);
    const name = record?.netns ?? netnsNameFor(dir);
    const tools = this.tools ?? (existsSync(netnsPathOf(name)) ? usableNetns() : null);
    if (tools === null) return;
    await removeNetns(tools, name).catch((error: unknown) =>
      this.logger.error({ sandboxId, err: error }, "network namespace not removed"),
    );
  }

  /** Sandboxes keep running; their names resolve again once a successor adopts them. */
  async close(): Promise<void> {
    this.resolver?.closeAll();
    this.proxy?.closeAll();
    await this.pool?.close();
  }

  /**
   * Writes the host's rules again when a minute has passed, or at once when the last writing
   * failed: a firewall reloaded meanwhile (or a Docker started after us, with its FORWARD policy
   * DROP) is mended before the next namespaces, without a spawn per namespace in a burst.
   */
  private async mendHostRules(tools: UsableNetns, forwards: LoopbackForward[]): Promise<void> {
    const failed = await this.hostRules?.then(
      () => false,
      () => true,
    );
    if (!failed && Date.now() - this.hostRulesAt < HOST_RULES_MEND_MS) return;
    this.hostRulesAt = Date.now();
    this.hostRules = ensureHostRules(tools, forwards);
    await this.hostRules;
  }

  /** One namespace, with its veth pair when that is the data path; says its address. */
  private async makeNetns(tools: UsableNetns, name: string): Promise<string | null> {
    if (this.link !== "veth") {
      await createNetns(tools, name);
      return null;
    }
    return this.makeVeth(tools, name);
  }

  /** Never a pair without the host's rules: they keep the sandbox off the host's services. */
  private async makeVeth(tools: UsableNetns, name: string): Promise<string> {
    await this.hostRules;
    return createNetnsWithVeth(tools, name, loopbackForwardsOf(this.operator));
  }

  /**
   * The sandbox's proxy listener (on the host's end of its veth pair, accepting only the
   * namespace's address, when `at` says so); null (no proxy variables) where it has none or
   * cannot listen.
   */
  private async openProxy(
    sandboxId: string,
    at?: { host: string; peer: string },
  ): Promise<number | null> {
    if (this.proxy === null) return null;
    const opened = at
      ? this.proxy.open(sandboxId, PROXY_PORT, at.host, at.peer)
      : this.proxy.open(sandboxId);
    return opened.catch((error: unknown) => {
      this.logger.warn(
        { sandboxId, reason: errorMessage(error) },
        "sandbox egress proxy not opened",
      );
      return null;
    });
  }

  private rulesetReplaced(sandboxId: string): void {
    this.denials.resetCounters(sandboxId);
    this.resolver?.rulesetReplaced(sandboxId);
  }

  private rulesetOf(policy: SandboxEgressPolicy): string {
    return compileEgressRuleset({ policy, operator: this.operator });
  }
}

function usableNetns(): UsableNetns | null {
  const support = detectNetns();
  return support.usable ? support : null;
}
