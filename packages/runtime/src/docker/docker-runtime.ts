import { EventEmitter } from "node:events";
import { existsSync } from "node:fs";
import {
  DEFAULT_SANDBOX_EGRESS,
  type EgressDenial,
  type SandboxEgressPolicy,
} from "@sandbox-server/egress";
import type Dockerode from "dockerode";
import { errorMessage } from "../error-message";
import { probeHealth, waitForHealth } from "../health";
import { silentLogger } from "../logger";
import type {
  NetworkIsolation,
  RuntimeLogger,
  RuntimeSandbox,
  SandboxRuntime,
  StartSandboxOptions,
} from "../types";
import { buildContainerConfig, type ContainerDefaults } from "./container-config";
import {
  ContainerEgress,
  containerNetworkOf,
  containerProxyEnv,
  detectContainerEgress,
  EGRESS_LABEL,
} from "./container-egress";
import { readContainerLogTail } from "./container-logs";
import { describeExit, observeContainer } from "./container-state";
import { describeDockerError, dockerStatusCode, isNotFound } from "./docker-errors";
import { createDockerClient } from "./dockerode";
import { HostSetup } from "./host-setup";
import { assertValidSandboxId, containerNameFor, MANAGED_LABEL, SANDBOX_ID_LABEL } from "./labels";
import {
  AGENT_SERVER_PORT,
  DEFAULT_DOCKER_OPTIONS,
  DEFAULT_RESOURCES,
  DEFAULT_SANDBOX_IMAGE,
  type DockerRuntimeOptions,
} from "./options";
import {
  bridgeNameFor,
  isMissingNetworkError,
  networkNameFor,
  type SandboxNetwork,
} from "./sandbox-network";
import { type ContainerExit, ContainerExitWatcher } from "./watch-exits";

export interface DockerRuntimeEvents {
  exit: [sandboxId: string, detail: string];
}

// Die events of a deleted container arrive after delete() returns; they are ours, not news.
const DELETED_MEMORY_MS = 60_000;

// Our own deletes are never reported, so any other removal came from outside.
const REMOVED_OUTSIDE = "the container was removed outside the control plane";

// Leaving the network behind is better than a shutdown that hangs on a silent daemon.
const CLOSE_CLEANUP_MS = 10_000;

/** The sandbox network disappeared between its check and the container's start. */
class NetworkGoneError extends Error {}

interface FoundContainer {
  container: Dockerode.Container;
  info: Dockerode.ContainerInspectInfo;
}

/**
 * One container per sandbox, found again by name and labels alone: the runtime keeps no state of
 * its own, so a restarted control plane sees exactly what Docker sees.
 */
export class DockerRuntime extends EventEmitter<DockerRuntimeEvents> implements SandboxRuntime {
  readonly kind = "docker" as const;
  readonly agentServerPort = AGENT_SERVER_PORT;
  readonly isolation = "container" as const;
  private readonly docker: Dockerode;
  private readonly defaults: ContainerDefaults;
  private readonly probeTimeoutMs: number;
  private readonly resumeTimeoutMs: number;
  private readonly stopTimeoutSeconds: number;
  private readonly logger: RuntimeLogger;
  private readonly exitWatcher: ContainerExitWatcher;
  private readonly hostSetup: HostSetup;
  private readonly deleting = new Set<string>();
  /** FinishedAt of the last exit reported per sandbox, so a replayed event is not reported twice. */
  private readonly reportedExits = new Map<string, string>();
  /** Enforces the sandboxes' egress policies; null where it cannot (`egressProblem` says why). */
  private egress: ContainerEgress | null;
  private egressProblem: string | null;
  private egressWarned = false;
  private closed = false;

  constructor(options: DockerRuntimeOptions = {}) {
    super();
    this.docker = createDockerClient(options.docker ?? DEFAULT_DOCKER_OPTIONS);
    const instance = options.instance ?? "default";
    this.defaults = {
      image: options.image ?? DEFAULT_SANDBOX_IMAGE,
      instance,
      network: options.network ?? networkNameFor(instance),
      ociRuntime: options.ociRuntime,
      resources: { ...DEFAULT_RESOURCES, ...options.defaultResources },
      publishAddress: options.publishAddress ?? "127.0.0.1",
    };
    this.probeTimeoutMs = options.probeTimeoutMs ?? 1000;
    this.resumeTimeoutMs = options.resumeTimeoutMs ?? 30_000;
    this.stopTimeoutSeconds = options.stopTimeoutSeconds ?? 5;
    this.logger = options.logger ?? silentLogger;
    const egress = detectContainerEgress(options.docker ?? DEFAULT_DOCKER_OPTIONS);
    this.egress = egress.usable
      ? new ContainerEgress(
          egress.tools,
          options.egress?.operator ?? { allow: [] },
          this.logger,
          options.egress?.resolveName,
        )
      : null;
    this.egressProblem = egress.usable ? null : egress.reason;
    this.hostSetup = new HostSetup(this.docker, {
      network: this.defaults.network ?? networkNameFor(instance),
      instance,
      firewall: options.hostFirewall ?? "auto",
      ociRuntime: options.ociRuntime,
      logger: this.logger,
      resolverOnGateway: this.egress !== null,
    });
    this.exitWatcher = new ContainerExitWatcher(
      this.docker,
      this.defaults.instance,
      (exit) => void this.reportExit(exit),
      this.logger,
    );
    // The daemon's event stream is opened only for someone who listens. `newListener` is a
    // built-in event the typed event map does not list, hence the plain EventEmitter view.
    (this as EventEmitter).on("newListener", (event: string | symbol) => {
      if (event === "exit" && !this.closed) this.exitWatcher.start();
    });
  }

  /** `own` while sandboxes' egress policies are enforced; unsaid otherwise (not the host's network either). */
  get network(): NetworkIsolation | undefined {
    return this.egress ? "own" : undefined;
  }

  get isolationDetail(): string {
    return this.egress
      ? "egress policy enforced by nftables in each container's network namespace; names through the control plane's resolver"
      : `egress policy NOT enforced: ${this.egressProblem ?? "unknown"}`;
  }

  /**
   * Creates the sandbox network (and the host's firewall rules for it) and checks the OCI
   * runtime, once; `start` does it too. Call it at boot to fail fast on a daemon that cannot host
   * sandboxes as configured. Warns when sandboxes' egress policies cannot be enforced.
   */
  async prepare(): Promise<void> {
    await this.ensureHost();
  }

  /** The host set up, and whether its bridge is here (else the policy cannot be enforced). */
  private async ensureHost(): Promise<SandboxNetwork> {
    const network = await this.hostSetup.ensure();
    if (this.egress && !existsSync(`/sys/class/net/${network.bridge}`)) {
      await this.egress.close();
      this.egress = null;
      this.egressProblem = `the sandbox network's bridge ${network.bridge} is not in this process's network namespace (a daemon in another namespace or machine)`;
    }
    if (this.egress === null && !this.egressWarned) {
      this.egressWarned = true;
      this.logger.warn(
        { reason: this.egressProblem },
        "sandboxes' egress policies are NOT enforced on this Docker host: they reach what the host's network reaches, private ranges included",
      );
    }
    return network;
  }

  /**
   * Opens the daemon's event stream anew, replaying from the last event seen. For a daemon that
   * was unreachable: a connection cut without a reset may hang forever without ending.
   */
  reconnectExitWatch(): void {
    if (this.closed || this.listenerCount("exit") === 0) return;
    this.exitWatcher.stop();
    this.exitWatcher.start();
  }

  async start(options: StartSandboxOptions): Promise<RuntimeSandbox> {
    const { sandboxId } = options;
    assertValidSandboxId(sandboxId);
    const config = buildContainerConfig(options, this.defaults);
    const policy = options.egress ?? DEFAULT_SANDBOX_EGRESS;
    config.Labels = { ...config.Labels, [EGRESS_LABEL]: JSON.stringify(policy) };
    let network = await this.ensureHost();
    let container: Dockerode.Container;
    try {
      container = await this.createAndStart(sandboxId, withResolver(config, network, this.egress));
    } catch (error) {
      if (!(error instanceof NetworkGoneError)) throw error;
      // Removed under us (by hand, or by a cleanup that saw it unused): create it again, once.
      this.logger.warn({ sandboxId, network: this.defaults.network }, "sandbox network was gone");
      this.hostSetup.forget();
      network = await this.ensureHost();
      container = await this.createAndStart(sandboxId, withResolver(config, network, this.egress));
    }
    const started = await container.inspect();
    try {
      await this.enforce(sandboxId, started, policy);
    } catch (error) {
      // A container that ended before its table could go in runs nothing to hold back: it is
      // `exited` like any sandbox whose agent server died at once (resume applies the table).
      if (processEnded(started)) return this.read(sandboxId, { probe: false });
      // Running without its policy is not an option: the sandbox does not start.
      await container.remove({ force: true }).catch(() => undefined);
      throw new Error(
        `sandbox ${sandboxId}: egress policy could not be applied: ${errorMessage(error)}`,
      );
    }
    this.logger.info(
      { sandboxId, containerId: container.id, image: config.Image },
      "sandbox started",
    );
    // No /health probe: the agent server has had no time to listen yet (node needs ~80 ms).
    return this.read(sandboxId, { probe: false });
  }

  async waitUntilReady(sandboxId: string, timeoutMs: number): Promise<RuntimeSandbox> {
    const deadline = Date.now() + timeoutMs;
    // The wait's first probe comes at once, so this read does not probe as well.
    const first = await this.read(sandboxId, { probe: false });
    if (first.state !== "starting" || first.agentServerUrl === null) {
      throw new Error(`sandbox ${sandboxId} is not ready: ${describeState(first)}`);
    }
    const url = first.agentServerUrl;
    // The container was read just now: the wait's first ask would only repeat that read.
    let readJustNow = true;
    try {
      await keepProcessAlive(
        waitForHealth(url, {
          timeoutMs: Math.max(0, deadline - Date.now()),
          probeTimeoutMs: this.probeTimeoutMs,
          // A refused probe costs a connection; a long interval adds half of itself to every
          // start, waiting after the agent server is up.
          intervalMs: 15,
          // Pointless once the container is gone or stopped: say why instead of timing out.
          // Asked less often than probes are made: each asks the Docker daemon.
          giveUpWhen: () => {
            if (!readJustNow) return this.readWhyNotComing(sandboxId);
            readJustNow = false;
            return null;
          },
          giveUpEveryMs: 250,
        }),
      );
    } catch (error) {
      const reason = errorMessage(error);
      throw new Error(`sandbox ${sandboxId} is not ready: ${reason}`);
    }
    // Its agent server has just answered at the URL read above: no second read of the container.
    return { ...first, state: "running", detail: null };
  }

  inspect(sandboxId: string): Promise<RuntimeSandbox> {
    return this.read(sandboxId, { probe: true });
  }

  /**
   * The sandbox as its container says, and `running` only once /health answers. Without the
   * probe a running container is reported `starting`.
   */
  private async read(sandboxId: string, { probe }: { probe: boolean }): Promise<RuntimeSandbox> {
    const found = await this.findContainer(sandboxId);
    if (found === null) return missing(sandboxId);
    const observed = observeContainer(found.info, this.defaults.publishAddress);
    const sandbox: RuntimeSandbox = { sandboxId, ...observed };
    await this.keepEnforced(sandboxId, found.info);
    if (observed.state === "exited") {
      sandbox.detail = await this.detailFor(found, observed.detail);
    }
    if (observed.state !== "running") return sandbox;
    // The container runs; the sandbox only counts as running once its agent server answers.
    if (observed.agentServerUrl === null) {
      return { ...sandbox, state: "starting", detail: "agent server port is not published" };
    }
    if (!probe) return { ...sandbox, state: "starting", detail: "agent server not asked yet" };
    const health = await keepProcessAlive(
      probeHealth(observed.agentServerUrl, this.probeTimeoutMs),
    );
    if (health.ok) return sandbox;
    const detail = `agent server not answering /health: ${health.reason}`;
    return { ...sandbox, state: "starting", detail };
  }

  async pause(sandboxId: string): Promise<RuntimeSandbox> {
    const found = await this.requireContainer(sandboxId, "pause");
    if (!found.info.State.Paused) {
      if (!found.info.State.Running) {
        const detail = await this.detailFor(
          found,
          observeContainer(found.info, this.defaults.publishAddress).detail,
        );
        throw new Error(`cannot pause sandbox ${sandboxId}: it is not running (${detail})`);
      }
      // What its table refused while it ran, before it goes quiet.
      await this.egress?.reportRefused(sandboxId);
      // 409 "already paused" means a concurrent pause won: the outcome is the same.
      await found.container.pause().catch(ignoreStatus(409));
      this.logger.info({ sandboxId }, "sandbox paused");
    }
    return this.inspect(sandboxId);
  }

  async resume(sandboxId: string): Promise<RuntimeSandbox> {
    const found = await this.requireContainer(sandboxId, "resume");
    const { State: state } = found.info;
    if (state.Paused) {
      await found.container.unpause().catch(ignoreStatus(409));
      this.logger.info({ sandboxId }, "sandbox unpaused");
    } else if (!state.Running) {
      // Same container, so the same key, env and files; Docker picks a new host port though,
      // which inspect reads back.
      await found.container.start().catch(ignoreStatus(304));
      this.logger.info({ sandboxId, previousExitCode: state.ExitCode }, "sandbox restarted");
      // A new process, so a new network namespace: without a ruleset until it is given one.
      const info = await found.container.inspect();
      try {
        await this.enforce(sandboxId, info, this.egress?.policyOf(sandboxId, info.Config.Labels));
      } catch (error) {
        // Ended again before its table could go in: the wait says why it ended.
        if (processEnded(info)) return this.waitUntilReady(sandboxId, this.resumeTimeoutMs);
        await found.container.kill().catch(() => undefined);
        throw new Error(
          `cannot resume sandbox ${sandboxId}: egress policy could not be applied: ${errorMessage(error)}`,
        );
      }
    } else {
      return this.inspect(sandboxId);
    }
    return this.waitUntilReady(sandboxId, this.resumeTimeoutMs);
  }

  async delete(sandboxId: string): Promise<void> {
    const found = await this.findContainer(sandboxId);
    if (found === null) return;
    this.deleting.add(sandboxId);
    await this.egress?.reportRefused(sandboxId);
    try {
      // A frozen process cannot act on SIGTERM, so a paused sandbox goes straight to SIGKILL.
      if (found.info.State.Running && !found.info.State.Paused) {
        await found.container.stop({ t: this.stopTimeoutSeconds }).catch(ignoreStatus(304, 404));
      }
      // 409 here means another delete is already removing it.
      await found.container.remove({ force: true, v: true }).catch(ignoreStatus(404, 409));
      this.logger.info({ sandboxId }, "sandbox deleted");
    } finally {
      this.egress?.forget(sandboxId);
      setTimeout(() => this.deleting.delete(sandboxId), DELETED_MEMORY_MS).unref();
      this.reportedExits.delete(sandboxId);
    }
  }

  /**
   * Replaces the ruleset in the container's namespace (running or paused) in one transaction;
   * an exited container gets it when it is started again.
   */
  async setEgressPolicy(sandboxId: string, policy: SandboxEgressPolicy): Promise<void> {
    const found = await this.requireContainer(sandboxId, "set the egress policy of");
    if (this.egress === null) {
      this.logger.warn({ sandboxId, reason: this.egressProblem }, "egress policy NOT enforced");
      return;
    }
    const where = containerNetworkOf(found.info, this.networkName());
    const live = await this.egress.setPolicy(sandboxId, policy, where);
    this.logger.info({ sandboxId, enforced: live }, "egress policy set");
  }

  /**
   * The running container's address on the sandbox network, when its daemon is this machine's
   * (published on loopback, its bridge in this network namespace): elsewhere it is not routed.
   */
  async addressOf(sandboxId: string): Promise<string | null> {
    if (!isLoopback(this.defaults.publishAddress ?? "127.0.0.1")) return null;
    if (!existsSync(`/sys/class/net/${bridgeNameFor(this.networkName())}`)) return null;
    const found = await this.findContainer(sandboxId);
    if (found === null || found.info.State?.Paused) return null;
    return containerNetworkOf(found.info, this.networkName())?.address ?? null;
  }

  onEgressDenied(listener: (denial: EgressDenial) => void): void {
    this.egress?.onDenied(listener);
  }

  /**
   * Reports (through `onEgressDenied`) the connections to addresses the sandbox's table refused
   * since the last read; read on demand (here, on pause, a policy change and delete), never by a
   * timer of the runtime's; here without a fork while the container's namespace counters say
   * nothing was refused since (RefusalGate). Names refused by the resolver are reported at once. A
   * container whose table this runtime applied is read without asking the daemon.
   */
  async reportEgressDenials(sandboxId: string): Promise<void> {
    if (this.egress === null) return;
    if (this.egress.enforces(sandboxId)) return this.egress.pullRefused(sandboxId);
    const found = await this.findContainer(sandboxId);
    if (found === null) return;
    await this.keepEnforced(sandboxId, found.info);
    await this.egress.pullRefused(sandboxId);
  }

  async list(): Promise<RuntimeSandbox[]> {
    const containers = await this.docker.listContainers({
      all: true,
      filters: { label: [`${MANAGED_LABEL}=${this.defaults.instance}`] },
    });
    const ids = containers
      .map((summary) => summary.Labels[SANDBOX_ID_LABEL])
      .filter((id): id is string => typeof id === "string" && id !== "");
    const sandboxes = await Promise.all(ids.map((id) => this.inspect(id)));
    // One removed between the listing and its inspection is simply no longer there.
    return sandboxes.filter((sandbox) => sandbox.state !== "missing");
  }

  /**
   * Stops following exits (every other daemon request used its own connection) and removes the
   * sandbox network if no container is left on it; sandboxes that exist keep running.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.exitWatcher.stop();
    this.removeAllListeners();
    await this.egress?.close();
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_CLEANUP_MS);
    });
    try {
      await Promise.race([this.hostSetup.removeIfUnused(), givenUp]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Applies the policy inside the running container's network namespace (when enforced here). */
  private async enforce(
    sandboxId: string,
    info: Dockerode.ContainerInspectInfo,
    policy: SandboxEgressPolicy | undefined,
  ): Promise<void> {
    if (this.egress === null || policy === undefined) return;
    const where = containerNetworkOf(info, this.networkName());
    if (where === null) {
      // Exited already: it gets the ruleset when it is started again.
      if (!info.State.Running) return;
      throw new Error("the container's process or address could not be read");
    }
    await this.egress.apply(sandboxId, where, policy);
  }

  /** A running container this runtime has not given a ruleset (adopted): keep or give one. */
  private async keepEnforced(
    sandboxId: string,
    info: Dockerode.ContainerInspectInfo,
  ): Promise<void> {
    if (this.egress === null) return;
    const where = containerNetworkOf(info, this.networkName());
    if (where === null) return;
    try {
      await this.egress.ensure(sandboxId, where, info.Config.Labels ?? undefined);
    } catch (error) {
      this.logger.error(
        { sandboxId, reason: errorMessage(error) },
        "egress ruleset of a running container could not be checked or applied",
      );
    }
  }

  private networkName(): string {
    return this.defaults.network ?? networkNameFor(this.defaults.instance);
  }

  private async createAndStart(
    sandboxId: string,
    config: Dockerode.ContainerCreateOptions,
  ): Promise<Dockerode.Container> {
    let container: Dockerode.Container;
    try {
      container = await this.docker.createContainer(config);
    } catch (error) {
      const message = describeCreateFailure(sandboxId, config.Image ?? "", error);
      throw isMissingNetworkError(error) ? new NetworkGoneError(message) : new Error(message);
    }
    try {
      await container.start();
    } catch (error) {
      // A container that never started is useless and would block the name: take it away.
      await container.remove({ force: true }).catch(() => undefined);
      const message = `sandbox ${sandboxId}: container did not start: ${describeDockerError(error)}`;
      throw isMissingNetworkError(error) ? new NetworkGoneError(message) : new Error(message);
    }
    return container;
  }

  /** Reports an exit with the detail `inspect` gives, unless it was ours or is stale. */
  private async reportExit({ sandboxId, exitCode }: ContainerExit): Promise<void> {
    if (this.closed || this.deleting.has(sandboxId)) return;
    let detail: string;
    let finishedAt = "";
    try {
      const found = await this.findContainer(sandboxId);
      if (found === null) {
        detail = `container exited with code ${exitCode ?? "unknown"}; ${REMOVED_OUTSIDE}`;
      } else if (found.info.State.Status === "removing") {
        detail = `${describeExit(found.info)}; ${REMOVED_OUTSIDE}`;
      } else {
        // Restarted (resumed) already, or replayed after a reconnect: nothing new to tell.
        if (found.info.State.Running) return;
        finishedAt = found.info.State.FinishedAt;
        if (this.reportedExits.get(sandboxId) === finishedAt) return;
        detail =
          (await this.detailFor(
            found,
            observeContainer(found.info, this.defaults.publishAddress).detail,
          )) ?? "exited";
      }
    } catch (error) {
      this.logger.warn({ sandboxId, err: error }, "exit seen but container not readable");
      detail = `container exited with code ${exitCode ?? "unknown"}`;
    }
    if (this.closed || this.deleting.has(sandboxId)) return;
    this.reportedExits.set(sandboxId, finishedAt);
    this.logger.warn({ sandboxId, detail }, "sandbox container exited");
    try {
      this.emit("exit", sandboxId, detail);
    } catch (error) {
      this.logger.error({ sandboxId, err: error }, "exit listener failed");
    }
  }

  /** Null while the container runs (or is being created); otherwise why it will not answer. */
  private async readWhyNotComing(sandboxId: string): Promise<string | null> {
    const found = await this.findContainer(sandboxId);
    if (found === null) return "its container disappeared";
    const observed = observeContainer(found.info, this.defaults.publishAddress);
    if (observed.state === "running" || observed.state === "starting") return null;
    const detail = await this.detailFor(found, observed.detail);
    return detail ? `it is ${observed.state}: ${detail}` : `it is ${observed.state}`;
  }

  /** The sandbox's container, or null; a same-named container not labelled as ours is ignored. */
  private async findContainer(sandboxId: string): Promise<FoundContainer | null> {
    assertValidSandboxId(sandboxId);
    const container = this.docker.getContainer(containerNameFor(sandboxId));
    try {
      const info = await container.inspect();
      const labels = info.Config.Labels ?? {};
      if (
        labels[MANAGED_LABEL] !== this.defaults.instance ||
        labels[SANDBOX_ID_LABEL] !== sandboxId
      ) {
        this.logger.warn({ sandboxId }, "container with the sandbox's name is not managed by us");
        return null;
      }
      return { container, info };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  private async requireContainer(sandboxId: string, action: string): Promise<FoundContainer> {
    const found = await this.findContainer(sandboxId);
    if (found === null) throw new Error(`cannot ${action} sandbox ${sandboxId}: no such container`);
    return found;
  }

  private async detailFor(found: FoundContainer, detail: string | null): Promise<string | null> {
    if (found.info.State.Running) return detail;
    const tail = await readContainerLogTail(found.container);
    if (tail === "") return detail;
    return `${detail ?? "container stopped"}; last output:\n${tail}`;
  }
}

/**
 * With egress enforced, Docker's embedded DNS forwards the container's lookups to the resolver,
 * and the proxy variables name the egress proxy on the gateway (unless the spec or the request
 * set them: the table decides either way).
 */
function withResolver(
  config: Dockerode.ContainerCreateOptions,
  network: SandboxNetwork,
  egress: ContainerEgress | null,
): Dockerode.ContainerCreateOptions {
  if (egress === null || network.gateway === null) return config;
  const env = config.Env ?? [];
  const given = new Set(env.map((entry) => entry.split("=")[0]));
  const proxy = Object.entries(containerProxyEnv(network.gateway))
    .filter(([name]) => !given.has(name))
    .map(([name, value]) => `${name}=${value}`);
  return {
    ...config,
    Env: [...env, ...proxy],
    HostConfig: { ...config.HostConfig, Dns: [network.gateway] },
  };
}

function missing(sandboxId: string): RuntimeSandbox {
  return {
    sandboxId,
    state: "missing",
    agentServerUrl: null,
    detail: "no container for this sandbox",
    labels: {},
  };
}

function describeState(sandbox: RuntimeSandbox): string {
  return sandbox.detail ? `${sandbox.state}, ${sandbox.detail}` : sandbox.state;
}

function describeCreateFailure(sandboxId: string, image: string, error: unknown): string {
  const message = describeDockerError(error);
  if (isMissingNetworkError(error)) return `sandbox ${sandboxId}: ${message}`;
  switch (dockerStatusCode(error)) {
    case 404:
      return `sandbox ${sandboxId}: image ${image} is not available locally (build it with \`npm run image\`): ${message}`;
    case 409:
      return `sandbox ${sandboxId} already has a container: ${message}`;
    default:
      return `sandbox ${sandboxId}: container could not be created: ${message}`;
  }
}

/**
 * fetch's sockets and AbortSignal.timeout do not hold the event loop open, so a script whose only
 * pending work is a probe (a docker-proxy port that accepts but never answers) would silently
 * exit mid-await. A referenced timer holds the process until the promise settles.
 */
async function keepProcessAlive<T>(promise: Promise<T>): Promise<T> {
  const hold = setInterval(() => undefined, 60_000);
  try {
    return await promise;
  } finally {
    clearInterval(hold);
  }
}

/** A rejection handler that treats the given daemon statuses as "already done". */
function ignoreStatus(...codes: number[]): (error: unknown) => void {
  return (error) => {
    const code = dockerStatusCode(error);
    if (code === undefined || !codes.includes(code)) throw error;
  };
}

/** Whether the container's process (the one inspect saw) has ended: its namespace went with it. */
function processEnded(info: Dockerode.ContainerInspectInfo): boolean {
  return !info.State.Pid || !existsSync(`/proc/${info.State.Pid}`);
}

const isLoopback = (address: string) => address === "127.0.0.1" || address === "::1";
