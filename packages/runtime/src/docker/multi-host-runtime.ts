import { EventEmitter } from "node:events";
import type { EgressDenial, SandboxEgressPolicy } from "@sandbox-server/egress";
import { errorMessage } from "../error-message";
import { silentLogger } from "../logger";
import type {
  NetworkIsolation,
  RuntimeLogger,
  RuntimeSandbox,
  SandboxRuntime,
  StartSandboxOptions,
} from "../types";
import { DockerHost, HostDownError } from "./docker-host";
import type { DockerHostConfig } from "./docker-hosts";
import { describeFirewallRule } from "./host-firewall";
import { DEFAULT_PROBE, type HostProbeOptions } from "./host-health";
import { assertValidSandboxId } from "./labels";
import { AGENT_SERVER_PORT, DEFAULT_RESOURCES, type DockerRuntimeOptions } from "./options";
import { chooseHost, type HostLoad } from "./placement";
import { bridgeNameFor, networkNameFor } from "./sandbox-network";

export interface MultiHostRuntimeOptions
  extends Omit<DockerRuntimeOptions, "docker" | "publishAddress"> {
  /** DOCKER_HOSTS, parsed by `parseDockerHosts`. */
  hosts: DockerHostConfig[];
  /** How often every host is pinged (default 5000 ms). */
  hostProbeIntervalMs?: number;
  /** Budget of one ping (default 3000 ms). */
  hostPingTimeoutMs?: number;
  /** Failed pings in a row before a host counts as down (default 2). */
  hostDownAfterFailures?: number;
  /** Budget of a listing or inspect on one host (default 10 s). */
  hostRequestTimeoutMs?: number;
  now?: () => number;
}

export interface MultiHostRuntimeEvents {
  exit: [sandboxId: string, detail: string];
  recovered: [sandboxId: string, detail: string];
}

/**
 * Sandboxes over several Docker hosts (DOCKER_HOSTS), each run by a DockerRuntime of its own.
 * A new sandbox goes to the live host with the most free capacity; which host holds a sandbox
 * is read from the containers' labels (list, or a lookup on every live host), so a restarted
 * control plane finds every sandbox where it is. Every host is pinged on a timer: when one stops
 * answering, its sandboxes are reported exited with a detail naming it and no new sandbox goes
 * there; when it answers again, what still runs there is reported `recovered`.
 */
export class MultiHostRuntime
  extends EventEmitter<MultiHostRuntimeEvents>
  implements SandboxRuntime
{
  readonly kind = "docker" as const;
  readonly agentServerPort = AGENT_SERVER_PORT;
  readonly isolation = "container" as const;
  readonly hosts: readonly DockerHost[];
  private readonly locations = new Map<string, DockerHost>();
  private readonly logger: RuntimeLogger;
  private readonly probe: HostProbeOptions;
  private readonly probeIntervalMs: number;
  private readonly defaultMemoryBytes: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private watchingExits = false;
  private closed = false;
  /** The rule to add on remote hosts' machines; null when there are none or the firewall is off. */
  private readonly firewallNote: string | null;

  constructor(options: MultiHostRuntimeOptions) {
    super();
    if (options.hosts.length === 0) throw new Error("no Docker host given");
    const { hosts, ...runtimeOptions } = options;
    const instance = options.instance ?? "default";
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.probe = {
      timeoutMs: options.hostPingTimeoutMs ?? DEFAULT_PROBE.timeoutMs,
      downAfterFailures: options.hostDownAfterFailures ?? DEFAULT_PROBE.downAfterFailures,
    };
    this.probeIntervalMs = options.hostProbeIntervalMs ?? 5000;
    const memoryMb = options.defaultResources?.memoryMb ?? DEFAULT_RESOURCES.memoryMb;
    this.defaultMemoryBytes = memoryMb * 1024 * 1024;
    const firewall = options.hostFirewall ?? "auto";
    const remote = hosts.filter((host) => host.remote).map((host) => host.name);
    if (firewall === "iptables" && remote.length > 0) {
      throw new Error(
        `DOCKER_HOST_FIREWALL=iptables cannot protect the remote Docker hosts ${remote.join(", ")}: their bridges are on other machines; add the rule there and use auto or off`,
      );
    }
    this.hosts = hosts.map(
      (config) =>
        new DockerHost(
          config,
          // A remote daemon's bridges are not in this machine's network namespace: its own
          // firewall is the operator's (see prepare's warning).
          { ...runtimeOptions, hostFirewall: config.remote ? "off" : firewall },
          instance,
          options.hostRequestTimeoutMs ?? 10_000,
        ),
    );
    this.firewallNote =
      remote.length > 0 && firewall !== "off" ? remoteFirewallRule(options) : null;
    // Exits are followed on every host only for someone who listens (as DockerRuntime does).
    (this as EventEmitter).on("newListener", (event: string | symbol) => {
      if (event === "exit" && !this.closed) this.watchExits();
    });
  }

  /** `own` when every host enforces the sandboxes' egress policies. */
  get network(): NetworkIsolation | undefined {
    return this.hosts.every((host) => host.runtime.network === "own") ? "own" : undefined;
  }

  /** Whether each host enforces the egress policy (after `prepare`, which finds out). */
  get isolationDetail(): string {
    const details = new Set(this.hosts.map((host) => host.runtime.isolationDetail));
    if (details.size === 1) return [...details][0] as string;
    return this.hosts
      .map((host) => `Docker host ${host.name}: ${host.runtime.isolationDetail}`)
      .join("; ");
  }

  /**
   * Pings every host, prepares the live ones (sandbox network, firewall where it can, OCI
   * runtime) and starts the health timer. Fails when no host answers, or a live host cannot host
   * sandboxes as configured; a host that does not answer is only logged (it joins when it does).
   */
  async prepare(): Promise<void> {
    await this.probeAll();
    const live = this.hosts.filter((host) => host.isUp);
    if (live.length === 0) {
      throw new Error(
        `no Docker host of DOCKER_HOSTS answers: ${this.hosts.map((host) => host.downDetail()).join("; ")}`,
      );
    }
    await Promise.all(live.map((host) => host.runtime.prepare()));
    for (const host of this.hosts) {
      if (host.config.remote && this.firewallNote !== null) {
        this.logger.warn(
          { dockerHost: host.name, rule: this.firewallNote },
          `sandboxes on Docker host ${host.describe()} can reach services on that machine's own addresses unless its operator adds the rule shown there (as root)`,
        );
      }
    }
    this.startTimer();
  }

  async start(options: StartSandboxOptions): Promise<RuntimeSandbox> {
    assertValidSandboxId(options.sandboxId);
    this.startTimer();
    const memoryBytes =
      options.resources?.memoryMb !== undefined
        ? options.resources.memoryMb * 1024 * 1024
        : this.defaultMemoryBytes;
    const host = await this.place(options.sandboxId, memoryBytes);
    host.pendingStarts += 1;
    host.pendingMemoryBytes += memoryBytes;
    this.locations.set(options.sandboxId, host);
    try {
      const started = await host.whileUp(host.runtime.start(options));
      this.logger.info({ sandboxId: options.sandboxId, dockerHost: host.name }, "sandbox placed");
      return started;
    } finally {
      host.pendingStarts -= 1;
      host.pendingMemoryBytes -= memoryBytes;
    }
  }

  async waitUntilReady(sandboxId: string, timeoutMs: number): Promise<RuntimeSandbox> {
    const host = await this.locate(sandboxId);
    if (host === null)
      throw new Error(`sandbox ${sandboxId} is not ready: ${this.missingDetail()}`);
    try {
      return await host.whileUp(host.runtime.waitUntilReady(sandboxId, timeoutMs));
    } catch (error) {
      if (error instanceof HostDownError) {
        throw new Error(`sandbox ${sandboxId} is not ready: ${error.message}`);
      }
      throw error;
    }
  }

  async inspect(sandboxId: string): Promise<RuntimeSandbox> {
    const host = await this.locate(sandboxId);
    if (host === null) return this.missing(sandboxId);
    if (host.health.state === "down") return onDownHost(sandboxId, host);
    try {
      const seen = await host.bounded(host.runtime.inspect(sandboxId), "an inspect");
      if (seen.state === "missing" && this.locations.get(sandboxId) === host) {
        this.locations.delete(sandboxId);
      }
      return seen;
    } catch (error) {
      if (error instanceof HostDownError) return onDownHost(sandboxId, host);
      throw error;
    }
  }

  /** The container's address where its host is this machine's daemon (remote ones: none). */
  async addressOf(sandboxId: string): Promise<string | null> {
    const host = await this.locate(sandboxId);
    if (host === null || host.health.state === "down") return null;
    return (await host.runtime.addressOf(sandboxId).catch(() => null)) ?? null;
  }

  async pause(sandboxId: string): Promise<RuntimeSandbox> {
    const host = await this.require(sandboxId, "pause");
    return host.whileUp(host.runtime.pause(sandboxId));
  }

  async resume(sandboxId: string): Promise<RuntimeSandbox> {
    const host = await this.require(sandboxId, "resume");
    return host.whileUp(host.runtime.resume(sandboxId));
  }

  async setEgressPolicy(sandboxId: string, policy: SandboxEgressPolicy): Promise<void> {
    const host = await this.require(sandboxId, "set the egress policy of");
    await host.whileUp(host.runtime.setEgressPolicy(sandboxId, policy));
  }

  onEgressDenied(listener: (denial: EgressDenial) => void): void {
    for (const host of this.hosts) host.runtime.onEgressDenied(listener);
  }

  /** The refused connections of the sandbox's table, read on its host (see DockerRuntime). */
  async reportEgressDenials(sandboxId: string): Promise<void> {
    const host = await this.locate(sandboxId);
    if (host?.isUp) await host.whileUp(host.runtime.reportEgressDenials(sandboxId));
  }

  /**
   * On a host that is down the sandbox is forgotten at once and its container removed when the
   * host answers again: the control plane's record can go, nothing there can run unseen.
   */
  async delete(sandboxId: string): Promise<void> {
    const host = await this.locate(sandboxId);
    if (host === null) return;
    if (host.health.state === "down") {
      host.pendingDeletes.add(sandboxId);
      this.locations.delete(sandboxId);
      this.logger.warn(
        { sandboxId, dockerHost: host.name },
        "sandbox deleted while its Docker host is down: its container is removed when the host answers again",
      );
      return;
    }
    await host.whileUp(host.runtime.delete(sandboxId));
    if (this.locations.get(sandboxId) === host) this.locations.delete(sandboxId);
  }

  /**
   * Every sandbox on the live hosts, and those known to be on a host that is down (reported
   * exited with the host named: their state there is unknown).
   */
  async list(): Promise<RuntimeSandbox[]> {
    const listed = await Promise.all(
      this.hosts.map(async (host) => {
        if (!host.isReachable) return [];
        try {
          const sandboxes = await host.bounded(host.runtime.list(), "a listing");
          for (const sandbox of sandboxes) this.locations.set(sandbox.sandboxId, host);
          return sandboxes;
        } catch (error) {
          this.logger.warn({ dockerHost: host.name, err: error }, "Docker host not listed");
          return [];
        }
      }),
    );
    const sandboxes = listed.flat();
    const listedIds = new Set(sandboxes.map((sandbox) => sandbox.sandboxId));
    for (const [sandboxId, host] of this.locations) {
      if (!listedIds.has(sandboxId) && host.health.state === "down") {
        sandboxes.push(onDownHost(sandboxId, host));
      }
    }
    return sandboxes;
  }

  /** Stops the health timer and closes every host's runtime (sandboxes keep running). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.removeAllListeners();
    await Promise.all(this.hosts.map((host) => host.runtime.close()));
  }

  /** Which host holds each sandbox known so far (placement, listings, lookups). */
  hostOf(sandboxId: string): string | null {
    return this.locations.get(sandboxId)?.name ?? null;
  }

  /** One health pass over every host now (the timer does it every `hostProbeIntervalMs`). */
  probeAll(): Promise<void> {
    if (this.probing === null) {
      this.probing = this.probeHosts().finally(() => {
        this.probing = null;
      });
    }
    return this.probing;
  }

  private async probeHosts(): Promise<void> {
    await Promise.all(
      this.hosts.map(async (host) => {
        const change = await host.probe(this.probe, this.now);
        if (this.closed) return;
        if (change === "went-down") this.onHostDown(host);
        if (change === "came-up") await this.onHostUp(host);
      }),
    );
  }

  private startTimer(): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setInterval(() => void this.probeAll(), this.probeIntervalMs);
    this.timer.unref();
  }

  private watchExits(): void {
    if (this.watchingExits) return;
    this.watchingExits = true;
    // Someone wants to know when sandboxes end: that includes their hosts going down.
    this.startTimer();
    for (const host of this.hosts) {
      host.runtime.on("exit", (sandboxId, detail) => {
        this.locations.set(sandboxId, host);
        this.emit("exit", sandboxId, detail);
      });
    }
  }

  /** Every sandbox there is reported exited now, with the host named (within one probe pass). */
  private onHostDown(host: DockerHost): void {
    const detail = host.downDetail();
    this.logger.error({ dockerHost: host.name, detail }, "Docker host is down");
    for (const [sandboxId, where] of this.locations) {
      if (where !== host) continue;
      try {
        this.emit("exit", sandboxId, detail);
      } catch (error) {
        this.logger.error({ sandboxId, err: error }, "exit listener failed");
      }
    }
  }

  /**
   * A host that answers (again): prepared, cleared of sandboxes deleted meanwhile, and every
   * sandbox still running there reported `recovered` for the control plane to adopt.
   */
  private async onHostUp(host: DockerHost): Promise<void> {
    this.logger.info({ dockerHost: host.name }, `Docker host ${host.describe()} answers`);
    host.runtime.reconnectExitWatch();
    try {
      await host.runtime.prepare();
      for (const sandboxId of [...host.pendingDeletes]) {
        await host.runtime.delete(sandboxId);
        host.pendingDeletes.delete(sandboxId);
      }
      const detail = `Docker host ${host.describe()} answers again`;
      for (const sandbox of await host.bounded(host.runtime.list(), "a listing")) {
        this.locations.set(sandbox.sandboxId, host);
        if (sandbox.state === "running" || sandbox.state === "paused") {
          this.emit("recovered", sandbox.sandboxId, detail);
        }
      }
    } catch (error) {
      this.logger.warn(
        { dockerHost: host.name, reason: errorMessage(error) },
        "Docker host answers again but could not be listed; its sandboxes are found at their next inspect",
      );
    }
  }

  /** The live host with the most free capacity; a host that cannot be asked is passed over. */
  private async place(sandboxId: string, memoryBytes: number): Promise<DockerHost> {
    const live = this.hosts.filter((host) => host.isReachable);
    const loads = await Promise.all(
      live.map(async (host): Promise<HostLoad | null> => {
        try {
          return await host.load();
        } catch (error) {
          this.logger.warn({ dockerHost: host.name, err: error }, "Docker host load not read");
          return null;
        }
      }),
    );
    const placement = chooseHost(
      loads.filter((load): load is HostLoad => load !== null),
      memoryBytes,
    );
    const chosen = live.find((host) => host.name === placement.host);
    if (placement.host === null || chosen === undefined) {
      const why = placement.host === null ? placement.why : "the chosen host vanished";
      const down = this.hosts.filter((host) => !host.isReachable).map((host) => host.downDetail());
      throw new Error(`sandbox ${sandboxId} cannot be placed: ${[why, ...down].join("; ")}`);
    }
    return chosen;
  }

  /** The host holding the sandbox: known, or looked up on every live host by its labels. */
  private async locate(sandboxId: string): Promise<DockerHost | null> {
    assertValidSandboxId(sandboxId);
    const known = this.locations.get(sandboxId);
    if (known !== undefined) return known;
    const found = await Promise.all(
      this.hosts.map(async (host) => {
        if (!host.isReachable) return null;
        return (await host.holds(sandboxId).catch(() => false)) ? host : null;
      }),
    );
    const host = found.find((candidate) => candidate !== null) ?? null;
    if (host !== null) this.locations.set(sandboxId, host);
    return host;
  }

  private async require(sandboxId: string, action: string): Promise<DockerHost> {
    const host = await this.locate(sandboxId);
    if (host === null) {
      throw new Error(`cannot ${action} sandbox ${sandboxId}: ${this.missingDetail()}`);
    }
    if (host.health.state === "down") {
      throw new Error(`cannot ${action} sandbox ${sandboxId}: ${host.downDetail()}`);
    }
    return host;
  }

  private missing(sandboxId: string): RuntimeSandbox {
    return {
      sandboxId,
      state: "missing",
      agentServerUrl: null,
      detail: this.missingDetail(),
      labels: {},
    };
  }

  /** No live host has it; a host that is down might. */
  private missingDetail(): string {
    const down = this.hosts.filter((host) => !host.isReachable);
    if (down.length === 0) return "no container for this sandbox on any Docker host";
    return `no container for this sandbox on the live Docker hosts; not answering: ${down.map((host) => host.downDetail()).join("; ")}`;
  }
}

/** A sandbox whose host is down: not running as far as anyone can tell, the host named. */
function onDownHost(sandboxId: string, host: DockerHost): RuntimeSandbox {
  return {
    sandboxId,
    state: "exited",
    agentServerUrl: null,
    detail: `${host.downDetail()}; the sandbox cannot be reached`,
    labels: {},
  };
}

function remoteFirewallRule(options: MultiHostRuntimeOptions): string {
  const network = options.network ?? networkNameFor(options.instance ?? "default");
  return describeFirewallRule(bridgeNameFor(network));
}
