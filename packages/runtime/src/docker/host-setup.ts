import type Dockerode from "dockerode";
import type { RuntimeLogger } from "../types";
import {
  describeFirewallRule,
  type HostFirewallMode,
  protectHostFrom,
  unprotectHostFrom,
} from "./host-firewall";
import {
  ensureSandboxNetwork,
  removeSandboxNetworkIfUnused,
  type SandboxNetwork,
} from "./sandbox-network";

export interface HostSetupOptions {
  network: string;
  instance: string;
  firewall: HostFirewallMode;
  /** OCI runtime the daemon must know (HostConfig.Runtime), or undefined for its default. */
  ociRuntime: string | undefined;
  logger: RuntimeLogger;
  /** Containers' DNS goes to the control plane's resolver on the gateway (egress enforced). */
  resolverOnGateway: boolean;
}

/**
 * What the daemon must have before the first sandbox starts: the sandbox network, the host's
 * firewall rules for its bridge, and the OCI runtime. Done once on first use; a failure is not
 * remembered, so the next start tries again.
 */
export class HostSetup {
  private ready: Promise<SandboxNetwork> | null = null;

  constructor(
    private readonly docker: Dockerode,
    private readonly options: HostSetupOptions,
  ) {}

  ensure(): Promise<SandboxNetwork> {
    if (this.ready === null) {
      const attempt = this.setUp();
      this.ready = attempt;
      attempt.catch(() => {
        if (this.ready === attempt) this.ready = null;
      });
    }
    return this.ready;
  }

  /** After the network vanished from under us: the next `ensure` creates it again. */
  forget(): void {
    this.ready = null;
  }

  /** Removes the network and its firewall rules when no container uses it; best effort. */
  async removeIfUnused(): Promise<void> {
    const { network, instance, firewall, logger } = this.options;
    this.ready = null;
    try {
      const removed = await removeSandboxNetworkIfUnused(this.docker, network, instance);
      if (removed === null) return;
      if (firewall !== "off") await unprotectHostFrom(removed.bridge);
      logger.info({ network }, "sandbox network removed (no sandboxes left)");
    } catch (error) {
      logger.warn({ network, err: error }, "sandbox network not removed");
    }
  }

  private async setUp(): Promise<SandboxNetwork> {
    const { network: name, instance, firewall, ociRuntime, logger } = this.options;
    if (ociRuntime !== undefined) await this.checkOciRuntime(ociRuntime);
    const network = await ensureSandboxNetwork(this.docker, name, instance);
    if (firewall !== "off") {
      const problem = await protectHostFrom(network.bridge, this.options.resolverOnGateway);
      if (problem !== null) {
        const message = `sandboxes on ${name} can reach services listening on the host's addresses: ${problem}`;
        if (firewall === "iptables") throw new Error(message);
        logger.warn(
          { network: name, bridge: network.bridge, rule: describeFirewallRule(network.bridge) },
          `${message}; add the rule shown as root to close this`,
        );
      }
    }
    logger.info(
      { network: name, bridge: network.bridge, firewall, ociRuntime: ociRuntime ?? "default" },
      "sandbox network ready (inter-container traffic off)",
    );
    return network;
  }

  private async checkOciRuntime(ociRuntime: string): Promise<void> {
    const info = (await this.docker.info()) as { Runtimes?: Record<string, unknown> };
    const known = Object.keys(info.Runtimes ?? {});
    if (!known.includes(ociRuntime)) {
      throw new Error(
        `OCI runtime ${JSON.stringify(ociRuntime)} (DOCKER_RUNTIME) is not configured on the Docker daemon; it knows: ${known.join(", ") || "none"}`,
      );
    }
  }
}
