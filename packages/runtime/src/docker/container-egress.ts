import { createSocket, type Socket } from "node:dgram";
import type { Server } from "node:http";
import {
  DEFAULT_SANDBOX_EGRESS,
  type EgressDenial,
  type OperatorEgressPolicy,
  type SandboxEgressPolicy,
} from "@sandbox-server/egress";
import type Dockerode from "dockerode";
import { errorMessage } from "../error-message";
import { findOnPath } from "../process/isolation/detect-bwrap";
import type { UsableNetns } from "../process/network/detect-netns";
import { EgressProxy, proxyEnvOf } from "../process/network/egress-proxy";
import {
  compileEgressRuleset,
  EGRESS_TABLE,
  PROXY_PORT,
  RESOLVER_PORT,
} from "../process/network/egress-ruleset";
import { RefusalGate } from "../process/network/refusal-gate";
import { DenialReporter, readRefused } from "../process/network/refused-destinations";
import { applyRuleset, listSet } from "../process/network/sandbox-network";
import { SandboxResolver } from "../process/network/sandbox-resolver";
import type { RuntimeLogger } from "../types";
import type { DockerConnection } from "./docker-connection";
import { GatewayListener } from "./gateway-listener";
import { LABEL_PREFIX } from "./labels";

/** The policy a container was created with (JSON); a later change lives in the runtime's memory. */
export const EGRESS_LABEL = `${LABEL_PREFIX}egress`;

export type ContainerEgressSupport =
  | { usable: true; tools: UsableNetns }
  | { usable: false; reason: string };

/**
 * Whether this process can enforce a policy inside the daemon's containers: the daemon on this
 * machine (a unix socket: its containers' pids are this machine's), root (to enter a network
 * namespace of the initial user namespace), `nsenter` and `nft` installed.
 */
export function detectContainerEgress(connection: DockerConnection): ContainerEgressSupport {
  if (connection.socketPath === undefined) {
    return {
      usable: false,
      reason: `the Docker daemon (${connection.host ?? "remote"}) is not on this machine: its containers' network namespaces cannot be entered`,
    };
  }
  if (process.getuid?.() !== 0) {
    return {
      usable: false,
      reason: "the control plane is not root (entering a container's network namespace needs it)",
    };
  }
  const nft = findOnPath("nft");
  const nsenter = findOnPath("nsenter");
  if (nft === null)
    return { usable: false, reason: "nft (Debian package nftables) is not installed" };
  if (nsenter === null) return { usable: false, reason: "nsenter (util-linux) is not installed" };
  return { usable: true, tools: { usable: true, nft, nsenter, ip: "", pasta: "" } };
}

/** The proxy variables of a container on a network whose gateway is `gateway`. */
export function containerProxyEnv(gateway: string): Record<string, string> {
  return proxyEnvOf(`http://${gateway}:${PROXY_PORT}`);
}

/** Where a running container's network is, as its inspect says. */
export interface ContainerNetwork {
  pid: number;
  /** Its address on the sandbox network: the resolver knows the sandbox by it. */
  address: string;
  /** The bridge's gateway: where the resolver listens and DNS may go. */
  gateway: string;
}

export function containerNetworkOf(
  info: Dockerode.ContainerInspectInfo,
  network: string,
): ContainerNetwork | null {
  const endpoint = info.NetworkSettings?.Networks?.[network];
  const pid = info.State?.Pid ?? 0;
  if (!info.State?.Running || pid <= 0 || !endpoint?.IPAddress || !endpoint.Gateway) return null;
  return { pid, address: endpoint.IPAddress, gateway: endpoint.Gateway };
}

/**
 * DockerRuntime's egress enforcement: the compiled ruleset (the process runtime's, the same
 * meaning) applied inside each container's network namespace with `nsenter --net=/proc/<pid>/ns/net
 * nft -f -`, and the control plane's resolver for the sandboxes' names on the bridge gateway's
 * port 53 (the containers' `Dns`: Docker's embedded DNS forwards to it from the container's
 * namespace, so the sandbox is known by its address). Kept per container process: a restarted
 * container (new pid, new namespace) is given the ruleset again, an adopted one keeps its own.
 */
export class ContainerEgress {
  private readonly policies = new Map<string, SandboxEgressPolicy>();
  /** Per sandbox, the container process whose namespace holds our ruleset. */
  private readonly applied = new Map<string, ContainerNetwork>();
  private readonly byAddress = new Map<string, string>();
  private readonly denials: DenialReporter;
  private readonly gate = new RefusalGate();
  private readonly resolver: SandboxResolver;
  private readonly proxy: EgressProxy;
  private readonly dns: GatewayListener<Socket>;
  /** Where the proxy variables point: every sandbox of the network (the peer's address names it). */
  private readonly proxyListener: GatewayListener<Server>;

  constructor(
    private readonly tools: UsableNetns,
    private readonly operator: OperatorEgressPolicy,
    private readonly logger: RuntimeLogger,
    resolveName?: (name: string) => Promise<string[] | null>,
  ) {
    this.denials = new DenialReporter((sandboxId, error) =>
      this.logger.error({ sandboxId, err: error }, "egress denial listener failed"),
    );
    this.resolver = new SandboxResolver(
      tools,
      (sandboxId) => {
        const where = this.applied.get(sandboxId);
        const policy = this.policies.get(sandboxId);
        return where && policy
          ? { policy, operator: this.operator, netns: netnsOf(where.pid) }
          : null;
      },
      (denial) => this.denials.report(denial),
      logger,
      resolveName,
    );
    this.proxy = new EgressProxy(
      (sandboxId) => {
        const policy = this.applied.has(sandboxId) ? this.policies.get(sandboxId) : undefined;
        // Nothing forwards the host's loopback into a container: the proxy serves none of it.
        return policy ? { policy, operator: this.operator, loopbackForwards: [] } : null;
      },
      (denial) => this.denials.report(denial),
      logger,
      (sandboxId, name) => this.resolver.lookup(sandboxId, name),
    );
    this.dns = new GatewayListener(
      (gateway) => this.openResolver(gateway),
      logger,
      "sandbox resolver",
    );
    this.proxyListener = new GatewayListener(
      (gateway) => this.openProxy(gateway),
      logger,
      "sandbox egress proxy",
    );
  }

  onDenied(listener: (denial: EgressDenial) => void): void {
    this.denials.listen(listener);
  }

  /** The sandbox's policy: the last one set here, else the one its container was created with. */
  policyOf(sandboxId: string, labels: Record<string, string> | undefined): SandboxEgressPolicy {
    const known = this.policies.get(sandboxId);
    if (known) return known;
    const policy = parsePolicy(labels?.[EGRESS_LABEL]);
    this.policies.set(sandboxId, policy);
    return policy;
  }

  /** Applies the sandbox's ruleset in the container's namespace (replacing any) and listens for its names. */
  async apply(
    sandboxId: string,
    where: ContainerNetwork,
    policy: SandboxEgressPolicy,
  ): Promise<void> {
    this.policies.set(sandboxId, policy);
    await this.listenUnlessShared(where.gateway);
    const ruleset = compileEgressRuleset({
      policy,
      operator: this.operator,
      resolverAddress: where.gateway,
      proxyAddress: where.gateway,
    });
    await applyRuleset(this.tools, netnsOf(where.pid), ruleset);
    this.track(sandboxId, where);
    this.resolver.rulesetReplaced(sandboxId);
    this.denials.resetCounters(sandboxId);
  }

  /**
   * For a running container found by a read: nothing when its process already has our ruleset;
   * else (adopted by this runtime, or started again by someone else) keeps a ruleset found in its
   * namespace, or applies the sandbox's policy to a namespace without one.
   */
  async ensure(
    sandboxId: string,
    where: ContainerNetwork,
    labels: Record<string, string> | undefined,
  ): Promise<void> {
    if (this.applied.get(sandboxId)?.pid === where.pid) return;
    const policy = this.policyOf(sandboxId, labels);
    const present = await listSet(this.tools, netnsOf(where.pid), EGRESS_TABLE, "refused4").then(
      () => true,
      () => false,
    );
    // Kept as it is: it may be a later policy than the label's, which a successor cannot know.
    if (present) {
      await this.listenUnlessShared(where.gateway);
      this.track(sandboxId, where);
      return;
    }
    await this.apply(sandboxId, where, policy);
    this.logger.info(
      { sandboxId, pid: where.pid },
      "egress ruleset applied to a container found running",
    );
  }

  /**
   * Records the policy; applies it at once when the container runs (`where`), after reporting
   * what the old table refused (under the old policy).
   */
  async setPolicy(
    sandboxId: string,
    policy: SandboxEgressPolicy,
    where: ContainerNetwork | null,
  ): Promise<boolean> {
    await this.reportRefused(sandboxId);
    this.policies.set(sandboxId, policy);
    if (where === null) return false;
    await this.apply(sandboxId, where, policy);
    return true;
  }

  /** Whether this runtime knows the container process whose namespace holds the sandbox's table. */
  enforces(sandboxId: string): boolean {
    return this.applied.has(sandboxId);
  }

  /**
   * Reports the destinations the container's table refused since the last read (one `nft` call);
   * says whether it read them.
   */
  async reportRefused(sandboxId: string): Promise<boolean> {
    const where = this.applied.get(sandboxId);
    const policy = this.policies.get(sandboxId);
    if (where === undefined || policy === undefined) return false;
    try {
      const refused = await readRefused(this.tools, netnsOf(where.pid));
      this.denials.reportRefused(sandboxId, refused, policy);
      return true;
    } catch (error) {
      this.logger.debug(
        { sandboxId, reason: errorMessage(error) },
        "refused destinations not read",
      );
      return false;
    }
  }

  /**
   * `reportRefused` for the control plane's periodic pull: skipped while the container's
   * namespace counters say nothing was refused since this pull last read (RefusalGate; the
   * daemon is local, so its pid is this machine's).
   */
  async pullRefused(sandboxId: string): Promise<void> {
    const where = this.applied.get(sandboxId);
    if (where === undefined) return;
    const read = () => this.reportRefused(sandboxId);
    await this.gate.pass(sandboxId, netnsOf(where.pid), where.pid, read);
  }

  forget(sandboxId: string): void {
    const where = this.applied.get(sandboxId);
    if (where && this.byAddress.get(where.address) === sandboxId)
      this.byAddress.delete(where.address);
    this.applied.delete(sandboxId);
    this.policies.delete(sandboxId);
    this.denials.forget(sandboxId);
    this.gate.forget(sandboxId);
    this.resolver.rulesetReplaced(sandboxId);
  }

  async close(): Promise<void> {
    await Promise.all([this.dns.close(), this.proxyListener.close()]);
  }

  private track(sandboxId: string, where: ContainerNetwork): void {
    const before = this.applied.get(sandboxId);
    if (before && this.byAddress.get(before.address) === sandboxId)
      this.byAddress.delete(before.address);
    this.applied.set(sandboxId, where);
    this.byAddress.set(where.address, sandboxId);
  }

  /**
   * Listens on the gateway, unless another control plane on this host (a replica sharing the
   * Docker instance, hence the network) holds the port already: the table is what enforces, so
   * the sandbox still starts; its names then resolve through that replica, which refuses names of
   * sandboxes it does not know (closed, never open).
   */
  private async listenUnlessShared(gateway: string): Promise<void> {
    try {
      await this.dns.listen(gateway);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    }
    // The proxy tells clients why; the table enforces without it, so a start never fails on it
    // (the listener logs why it could not open).
    await this.proxyListener.listen(gateway).catch(() => undefined);
  }

  /**
   * The proxy's server on the gateway's PROXY_PORT. Where it cannot listen, the containers' proxy
   * clients fail to connect, and the table still decides what the others reach.
   */
  private openProxy(gateway: string): Promise<Server> {
    return new Promise<Server>((resolve, reject) => {
      const server = this.proxy.serve(
        (socket) => this.byAddress.get(normalizePeer(socket.remoteAddress)) ?? null,
      );
      server.once("error", reject);
      server.listen(PROXY_PORT, gateway, () => {
        server.off("error", reject);
        server.unref();
        resolve(server);
      });
    });
  }

  /** The resolver's UDP socket on the gateway's port 53. */
  private openResolver(gateway: string): Promise<Socket> {
    return new Promise<Socket>((resolve, reject) => {
      const socket = createSocket("udp4");
      socket.once("error", reject);
      socket.bind(RESOLVER_PORT, gateway, () => {
        socket.off("error", reject);
        socket.on("error", (error) =>
          this.logger.warn({ err: error }, "sandbox resolver socket error"),
        );
        socket.on("message", (message, peer) => {
          const sandboxId = this.byAddress.get(peer.address) ?? "";
          void this.resolver.answer(sandboxId, message).then((reply) => {
            if (reply) socket.send(reply, peer.port, peer.address);
          });
        });
        socket.unref();
        resolve(socket);
      });
    });
  }
}

/** A peer address as the containers' inspect shows it (IPv4, not IPv4-mapped IPv6). */
function normalizePeer(address: string | undefined): string {
  return (address ?? "").replace(/^::ffff:/, "");
}

function netnsOf(pid: number): string {
  return `/proc/${pid}/ns/net`;
}

function parsePolicy(text: string | undefined): SandboxEgressPolicy {
  if (text === undefined) return DEFAULT_SANDBOX_EGRESS;
  try {
    const parsed = JSON.parse(text) as SandboxEgressPolicy;
    if (
      typeof parsed.allowInternet === "boolean" &&
      Array.isArray(parsed.allowOut) &&
      Array.isArray(parsed.denyOut)
    ) {
      return parsed;
    }
  } catch {
    // A label someone else wrote: the closed policy below, never a wider one.
  }
  return { allowInternet: false, allowOut: [], denyOut: [] };
}
