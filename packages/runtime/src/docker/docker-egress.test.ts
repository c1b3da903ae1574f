import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type {
  EgressDenial,
  OperatorEgressPolicy,
  SandboxEgressPolicy,
} from "@sandbox-server/egress";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LanHost } from "../process/test/lan-host";
import {
  expectRefusalsPulled,
  PROBE_SCRIPT,
  PROXY_CLIENT_SCRIPT,
  probeFromHost,
} from "../process/test/probe";
import { detectContainerEgress } from "./container-egress";
import { dockerConnectionFromHost } from "./docker-connection";
import { DockerRuntime } from "./docker-runtime";
import { containerNameFor } from "./labels";
import { testDockerConnection } from "./test/connection";
import {
  createRuntime,
  docker,
  dockerMissing,
  executeBash,
  removeTestContainers,
  startOptions,
  testInstance,
} from "./test/support";

/**
 * A Docker sandbox's egress follows its policy, enforced in the container's own network
 * namespace: each refusal is shown after the same probe succeeded (the LAN host is reachable
 * from a container when its policy lets it through). Needs root, nft and a local daemon; in CI
 * (`CI=true`) these tests fail without them.
 */
const support = detectContainerEgress(testDockerConnection());
const mustRun = (!dockerMissing && support.usable) || process.env.CI === "true";
if (!dockerMissing && !support.usable) {
  console.warn(`[docker egress tests] skipped: ${support.reason}`);
}

const exec = promisify(execFile);
const LAN_NAME = "lan.sandbox-test.internal";
/** A refusal: an error code at once (reset, ICMP prohibited, NXDOMAIN), not a timeout. */
const REFUSED = /^E[A-Z_]+$/;

interface Sandbox {
  id: string;
  key: string;
  url: string;
}

function policy(overrides: Partial<SandboxEgressPolicy> = {}): SandboxEgressPolicy {
  return { allowInternet: true, allowOut: [], denyOut: [], ...overrides };
}

describe("DockerRuntime on a daemon of another machine", () => {
  it("does not claim the egress policy, and says why", () => {
    const remote = new DockerRuntime({ docker: dockerConnectionFromHost("tcp://127.0.0.1:9") });
    expect(remote.network).toBeUndefined();
    expect(remote.isolationDetail).toMatch(/^egress policy NOT enforced: .*not on this machine/);
  });
});

describe.runIf(mustRun)("DockerRuntime: the egress policy", { timeout: 120_000 }, () => {
  const lan = new LanHost();
  const denials: EgressDenial[] = [];
  const resolveName = async (name: string) => (name === LAN_NAME ? [lan.address] : null);
  let plain: DockerRuntime;
  /** The operator lets sandboxes reach the LAN host (SANDBOX_EGRESS_ALLOW). */
  let operator: DockerRuntime;
  let operatorPolicy: OperatorEgressPolicy;
  let a: Sandbox;
  let b: Sandbox;
  const lanCidr = () => ({ kind: "cidr" as const, cidr: `${lan.address}/32`, port: null });

  async function start(runtime: DockerRuntime, egress?: SandboxEgressPolicy): Promise<Sandbox> {
    const options = startOptions(egress ? { egress } : {});
    await runtime.start(options);
    const ready = await runtime.waitUntilReady(options.sandboxId, 30_000);
    return { id: options.sandboxId, key: options.sessionApiKey, url: ready.agentServerUrl ?? "" };
  }

  /** The probe inside the sandbox, through its agent server as an agent's command runs. */
  async function probe(sandbox: Sandbox, ...args: string[]): Promise<string> {
    const result = await executeBash(
      sandbox.url,
      sandbox.key,
      `node -e '${PROBE_SCRIPT}' probe ${args.join(" ")}`,
    );
    return result.stdout.trim();
  }

  /** A client of the egress proxy inside the sandbox (`get <url>` or `connect <host:port>`). */
  async function viaProxy(sandbox: Sandbox, ...args: string[]): Promise<string> {
    const result = await executeBash(
      sandbox.url,
      sandbox.key,
      `node -e '${PROXY_CLIENT_SCRIPT}' proxy ${args.join(" ")}`,
    );
    return result.stdout.trim();
  }

  beforeAll(async () => {
    await lan.start();
    operatorPolicy = { allow: [lanCidr()] };
    plain = createRuntime({ egress: { operator: { allow: [] }, resolveName } });
    plain.onEgressDenied((denial) => denials.push(denial));
    operator = createRuntime({
      instance: `${testInstance}-op`,
      egress: { operator: operatorPolicy, resolveName },
    });
    operator.onEgressDenied((denial) => denials.push(denial));
    [a, b] = await Promise.all([start(plain, policy({ allowOut: [lanCidr()] })), start(operator)]);
  }, 120_000);

  afterAll(async () => {
    await removeTestContainers();
    await Promise.all([plain?.close(), operator?.close()]);
    await lan.stop();
  });

  it("says so: own network, egress enforced", () => {
    expect(plain.network).toBe("own");
    expect(plain.isolationDetail).toMatch(/^egress policy enforced/);
  });

  it("reaches a LAN host while its policy allows it, and is refused it by default", async () => {
    expect(await probeFromHost("http", lan.address, "8080")).toBe("reply lan-host");
    expect(await probe(a, "http", lan.address, "8080")).toBe("reply lan-host");
    await plain.setEgressPolicy(a.id, policy());
    expect(await probe(a, "http", lan.address, "8080")).toMatch(REFUSED);
    expect(await probe(a, "udp", lan.address, "53")).toMatch(REFUSED);
  });

  it("reports refused connections to addresses when asked, once each", async () => {
    // What the earlier tests refused is reported by this first pull.
    await plain.reportEgressDenials(a.id);
    const ofLan = () =>
      denials.filter((d) => d.sandboxId === a.id && d.destination === `${lan.address}:8080`);
    const before = ofLan().length;
    expect(await probe(a, "tcp", lan.address, "8080")).toMatch(REFUSED);
    await plain.reportEgressDenials(a.id);
    expect(ofLan().slice(before)).toEqual([
      expect.objectContaining({ rule: "non-public range (reserved)" }),
    ]);
    await plain.reportEgressDenials(a.id);
    expect(ofLan()).toHaveLength(before + 1);
  });

  it("reports a refusal made after a pull that found nothing new, TCP and UDP", async () => {
    expect(await probe(b, "tcp", lan.address, "8080")).toBe("open");
    expect(await probeFromHost("udp", lan.address, "53")).toBe("reply ping");
    await operator.setEgressPolicy(b.id, policy({ denyOut: [lanCidr()] }));
    await expectRefusalsPulled({
      address: lan.address,
      probe: (...args) => probe(b, ...args),
      pull: () => operator.reportEgressDenials(b.id),
      reported: (destination) =>
        denials.filter((d) => d.sandboxId === b.id && d.destination === destination),
    });
    await operator.setEgressPolicy(b.id, policy());
  });

  it("lets allow_out win over deny_out", async () => {
    expect(await probe(b, "http", lan.address, "8080")).toBe("reply lan-host");
    await operator.setEgressPolicy(b.id, policy({ denyOut: [lanCidr()] }));
    expect(await probe(b, "http", lan.address, "8080")).toMatch(REFUSED);
    await operator.setEgressPolicy(
      b.id,
      policy({ denyOut: [lanCidr()], allowOut: [{ ...lanCidr(), port: 8080 }] }),
    );
    expect(await probe(b, "http", lan.address, "8080")).toBe("reply lan-host");
    await operator.setEgressPolicy(b.id, policy());
  });

  it("resolves names through the control plane's resolver only", async () => {
    expect(await probe(b, "lookup", LAN_NAME)).toBe(lan.address);
    expect(await probeFromHost("udp", lan.address, "53")).toBe("reply ping");
    // The operator allows the LAN host, but not as a resolver.
    expect(await probe(b, "udp", lan.address, "53")).toMatch(REFUSED);
    await operator.setEgressPolicy(
      b.id,
      policy({
        denyOut: [{ kind: "host", name: "sandbox-test.internal", wildcard: true, port: null }],
      }),
    );
    expect(await probe(b, "lookup", LAN_NAME)).toBe("ENOTFOUND");
    expect(denials).toContainEqual(
      expect.objectContaining({
        sandboxId: b.id,
        destination: `${LAN_NAME}:53`,
        rule: "deny_out *.sandbox-test.internal",
      }),
    );
    await operator.setEgressPolicy(b.id, policy());
    expect(await probe(b, "lookup", LAN_NAME)).toBe(lan.address);
  });

  it("leaves only allow_out with allow_internet false", async () => {
    expect(await probe(b, "http", lan.address, "8080")).toBe("reply lan-host");
    // Without allow_internet, the operator's exception alone does not let it through...
    await operator.setEgressPolicy(b.id, policy({ allowInternet: false }));
    expect(await probe(b, "http", lan.address, "8080")).toMatch(REFUSED);
    expect(await probe(b, "lookup", LAN_NAME)).toBe("ENOTFOUND");
    // ...allow_out does, by name.
    await operator.setEgressPolicy(
      b.id,
      policy({
        allowInternet: false,
        allowOut: [{ kind: "host", name: LAN_NAME, wildcard: false, port: 8080 }],
      }),
    );
    expect(await probe(b, "http", LAN_NAME, "8080")).toBe("reply lan-host");
    await operator.setEgressPolicy(b.id, policy());
  });

  it("answers proxy clients: allowed through, refused with 403 and the reason, never the host", async () => {
    const env = await executeBash(b.url, b.key, "echo $HTTP_PROXY $NO_PROXY");
    const gateway = /^http:\/\/([\d.]+):3128 localhost,127\.0\.0\.1,::1$/.exec(
      env.stdout.trim(),
    )?.[1];
    expect(gateway, env.stdout).toBeDefined();
    expect(await viaProxy(b, "get", `http://${LAN_NAME}:8080/`)).toBe("200 lan-host");
    expect(await viaProxy(b, "connect", `${lan.address}:8080`)).toBe("200");
    await operator.setEgressPolicy(b.id, policy({ denyOut: [lanCidr()] }));
    const reason = `refused by rule: deny_out ${lan.address}`;
    expect(await viaProxy(b, "get", `http://${lan.address}:8080/`)).toBe(
      `403 ${lan.address}:8080 ${reason}`,
    );
    expect(await viaProxy(b, "connect", `${lan.address}:8080`)).toBe(
      `403 ${lan.address}:8080 ${reason}`,
    );
    // A client that ignores the variables meets the table.
    expect(await probe(b, "tcp", lan.address, "8080")).toMatch(REFUSED);
    // The proxy connects from the host: the host's own addresses and loopback stay closed.
    expect(await viaProxy(b, "connect", `${gateway}:3128`)).toBe(
      `403 ${gateway}:3128 refused by rule: the control plane's host`,
    );
    expect(await viaProxy(b, "connect", "127.0.0.1:22")).toBe(
      "403 127.0.0.1:22 refused by rule: non-public range (loopback)",
    );
    await operator.setEgressPolicy(b.id, policy());
  });

  it("keeps the policy over pause and resume, and gives it again to a restarted container", async () => {
    expect(await probe(b, "http", lan.address, "8080")).toBe("reply lan-host");
    await operator.setEgressPolicy(b.id, policy({ denyOut: [lanCidr()] }));
    await operator.pause(b.id);
    await operator.resume(b.id);
    expect(await probe(b, "http", lan.address, "8080")).toMatch(REFUSED);
    // Ended from outside: started again, it is a new process in a new network namespace.
    await docker.getContainer(containerNameFor(b.id)).kill();
    await docker.getContainer(containerNameFor(b.id)).wait();
    const resumed = await operator.resume(b.id);
    b = { ...b, url: resumed.agentServerUrl ?? "" };
    expect(await probe(b, "http", lan.address, "8080")).toMatch(REFUSED);
    await operator.setEgressPolicy(b.id, policy());
    expect(await probe(b, "http", lan.address, "8080")).toBe("reply lan-host");
  });

  it("is adopted by a new runtime: a ruleset found is kept, a missing one given again", async () => {
    const c = await start(plain);
    await plain.close();
    const successor = createRuntime({ egress: { operator: { allow: [] }, resolveName } });
    plain = successor;
    // A's live ruleset (set after its start) is kept, not replaced by its create-time policy.
    expect((await successor.inspect(a.id)).state).toBe("running");
    expect(await probe(a, "http", lan.address, "8080")).toMatch(REFUSED);
    const { Pid: pid } = (await docker.getContainer(containerNameFor(c.id)).inspect()).State;
    // Taken away from outside: the LAN host is reachable without it...
    await exec("nsenter", [
      `--net=/proc/${pid}/ns/net`,
      "nft",
      "delete",
      "table",
      "inet",
      "sandbox_egress",
    ]);
    expect(await probe(c, "http", lan.address, "8080")).toBe("reply lan-host");
    // ...until the new runtime reads the sandbox.
    expect((await successor.inspect(c.id)).state).toBe("running");
    expect(await probe(c, "http", lan.address, "8080")).toMatch(REFUSED);
    expect(await probe(c, "lookup", LAN_NAME)).toBe(lan.address);
  });
});
