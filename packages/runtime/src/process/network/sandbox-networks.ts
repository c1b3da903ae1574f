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
import { detectNetns, type UsableNetns } from "./detect-netns";
import { EgressProxy } from "./egress-proxy";
import { compileEgressRuleset, loopbackForwardsOf, PROXY_PORT } from "./egress-ruleset";
import { NetnsPool } from "./netns-pool";
import { removePoolLeftovers } from "./pool-leftovers";
import { DenialReporter, readRefused } from "./refused-destinations";
import {
  applyRuleset,
  createNetns,
  netnsNameFor,
  netnsPathOf,
  removeNetns,
} from "./sandbox-network";
import { SandboxResolver } from "./sandbox-resolver";

export interface SandboxNetworksOptions {
  rootDir: string;
  /** The namespace tools; null when sandboxes share the host's network. */
  tools: UsableNetns | null;
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
  private readonly resolver: SandboxResolver | null;
  private readonly proxy: EgressProxy | null;
  private readonly pool: NetnsPool | null;

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
    // An operator exception on the proxy's port keeps that port (pasta cannot forward it twice).
    const proxied = !loopbackForwardsOf(this.operator).some((f) => f.port === PROXY_PORT);
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
    this.pool = options.tools ? new NetnsPool(options.tools, options.rootDir, this.logger) : null;
    // What an earlier control plane killed before its close left in its pool goes first.
    if (options.tools && this.pool) {
      const pool = this.pool;
      void removePoolLeftovers(options.tools, options.rootDir, this.logger).finally(() =>
        pool.fill(),
      );
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
    record.netns = pooled ?? netnsNameFor(record.paths.dir);
    if (pooled) return Promise.resolve(true);
    return createNetns(tools, record.netns).then(
      () => true,
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
    if (this.tools === null || this.resolver === null) return null;
    this.rulesetReplaced(record.sandboxId);
    record.preparedNetns ??= this.prepare(record);
    return {
      tools: this.tools,
      namespace: record.netns ?? netnsNameFor(record.paths.dir),
      ruleset: this.rulesetOf(record.egress),
      resolverPort: await this.resolver.open(record.sandboxId),
      proxyPort: await this.openProxy(record.sandboxId),
      forwards: loopbackForwardsOf(this.operator),
    };
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

  /** Reports the destinations the ruleset refused since the last read (one `nft` call). */
  async reportRefused(record: SandboxRecord): Promise<void> {
    if (this.tools === null || record.netns === null) return;
    try {
      const refused = await readRefused(this.tools, record.netns);
      this.denials.reportRefused(record.sandboxId, refused, record.egress);
    } catch (error) {
      this.logger.debug(
        { sandboxId: record.sandboxId, reason: errorMessage(error) },
        "refused destinations not read",
      );
    }
  }

  /** An adopted sandbox's pasta still forwards to its resolver's and proxy's ports: listen there again. */
  adopt(record: SandboxRecord): void {
    if (this.proxy && record.netns !== null && record.proxyPort !== null) {
      this.proxy
        .open(record.sandboxId, record.proxyPort)
        .catch((error: unknown) =>
          this.logger.warn(
            { sandboxId: record.sandboxId, port: record.proxyPort, reason: errorMessage(error) },
            "sandbox egress proxy not reopened: its proxy clients fail until it is relaunched",
          ),
        );
    }
    if (this.resolver === null || record.netns === null || record.resolverPort === null) return;
    this.resolver
      .open(record.sandboxId, record.resolverPort)
      .catch((error: unknown) =>
        this.logger.warn(
          { sandboxId: record.sandboxId, port: record.resolverPort, reason: errorMessage(error) },
          "sandbox resolver not reopened: names do not resolve in it until it is relaunched",
        ),
      );
  }

  /**
   * Removes the namespace of the sandbox in `dir` (its processes, pasta among them, are gone).
   * Also without tools, when the namespace exists: a runtime on the host's network sweeping
   * sandboxes an earlier one made (the name is the directory's, recorded or not).
   */
  async remove(sandboxId: string, record: SandboxRecord | null, dir: string): Promise<void> {
    this.resolver?.close(sandboxId);
    this.proxy?.close(sandboxId);
    this.denials.forget(sandboxId);
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

  /** The sandbox's proxy listener; null (no proxy variables) where it has none or cannot listen. */
  private async openProxy(sandboxId: string): Promise<number | null> {
    if (this.proxy === null) return null;
    return this.proxy.open(sandboxId).catch((error: unknown) => {
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
