/**
 * Sandboxes over several Docker hosts, on real daemons: the hosts of tooling/docker/docker-hosts-up.sh
 * (h1, h2: each a dockerd in a network namespace of its own, reached over tcp). A host is cut off
 * (its link taken down: daemon and containers keep running) and killed (dockerd, containerd,
 * shims, proxies and containers: tooling/docker/kill-docker-host.sh) while the control plane runs.
 * Needs root. Without the hosts the suite is skipped, except with CI=true, where it fails.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { type MultiHostRuntime, parseDockerHosts, SANDBOX_ID_LABEL } from "@sandbox-server/runtime";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "../src/env";
import { selectRuntime } from "../src/runtime";
import { type RunningServer, startServer } from "../src/server";
import { apiCall } from "../test/api-call";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const ENV_FILE = "/tmp/sandbox-server-docker-hosts/env";
const ADMIN_KEY = "ssk_multi_host_admin_key_0123456789";
/** The bound we promise: a dead host's sandboxes are ERROR within 60 s. */
const HOST_LOSS_BOUND_MS = 60_000;

function readDockerHosts(): string | undefined {
  if (process.env.DOCKER_HOSTS) return process.env.DOCKER_HOSTS;
  if (!existsSync(ENV_FILE)) return undefined;
  const line = readFileSync(ENV_FILE, "utf8")
    .split("\n")
    .find((text) => text.startsWith("DOCKER_HOSTS="));
  return line?.slice("DOCKER_HOSTS=".length).trim() || undefined;
}

const dockerHosts = readDockerHosts();
if (dockerHosts === undefined && process.env.CI === "true") {
  throw new Error(
    `no Docker hosts: run tooling/docker/docker-hosts-up.sh 2 first (it writes ${ENV_FILE}) or set DOCKER_HOSTS`,
  );
}
const hosts = dockerHosts ? parseDockerHosts(dockerHosts) : [];
const addressOf = (name: string) => {
  const host = hosts.find((candidate) => candidate.name === name);
  if (!host) throw new Error(`DOCKER_HOSTS has no ${name}: ${dockerHosts}`);
  return host.publishAddress;
};
const dockerOn = (name: string, args: string[]) =>
  execFileSync("docker", ["-H", `tcp://${addressOf(name)}:2375`, ...args], {
    encoding: "utf8",
    timeout: 60_000,
  }).trim();
const script = (name: string, ...args: string[]) =>
  execFileSync("bash", [path.join(ROOT, "tooling", "docker", name), ...args], {
    stdio: ["ignore", "ignore", "inherit"],
    timeout: 180_000,
  });
/** The veth end on the machine's bridge (tooling/docker/docker-hosts-up.sh): down cuts the host off. */
const setLink = (name: string, state: "up" | "down") =>
  execFileSync("ip", ["link", "set", `sbxh-${name}`, state]);

const message = (text: string) => ({ role: "user", content: [{ type: "text", text }], run: true });

interface Plane {
  server: RunningServer;
  runtime: MultiHostRuntime;
}

describe.skipIf(dockerHosts === undefined)("sandboxes over several Docker hosts", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "sandbox-server-multi-host-"));
  let logs = "";
  const log = pino(
    { level: "info" },
    new Writable({
      write(chunk, _encoding, done) {
        logs += chunk.toString();
        done();
      },
    }),
  );
  let plane: Plane;

  /** A control plane as `sandbox-server` starts one: its runtime from the environment. */
  async function startPlane(): Promise<Plane> {
    const env = loadEnv({ DATA_DIR: dataDir, DOCKER_HOSTS: dockerHosts, LOG_LEVEL: "info" });
    const runtime = (await selectRuntime(env, log)) as MultiHostRuntime;
    const server = await startServer({
      dataDir,
      runtime,
      log,
      adminApiKey: ADMIN_KEY,
      config: { supervisorIntervalMs: 500, sandboxStartTimeoutMs: 60_000 },
    });
    return { server, runtime };
  }

  function api(method: string, route: string, body?: unknown) {
    return apiCall(plane.server.url, method, route, { key: ADMIN_KEY, body });
  }

  async function waitForSandbox(id: string, status: string, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      const read = await api("GET", `/api/v1/sandboxes/${id}`);
      if (read.body?.status === status) return read.body;
      last = read.body;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(
      `sandbox ${id} did not reach ${status} within ${timeoutMs} ms: ${JSON.stringify(last)}`,
    );
  }

  async function newConversation(): Promise<{ id: string; sandboxId: string }> {
    const created = await api("POST", "/api/v1/app-conversations", {});
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { id: created.body.id, sandboxId: created.body.sandbox_id };
  }

  async function newSandbox(): Promise<string> {
    const created = await api("POST", "/api/v1/sandboxes", {});
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitForSandbox(created.body.id, "RUNNING");
    return created.body.id;
  }

  const send = (conversationId: string, text: string) =>
    api("POST", `/api/v1/app-conversations/${conversationId}/send-message`, message(text));

  /** Where Docker itself has the sandbox's container: the hosts whose daemon lists it. */
  const containerHosts = (sandboxId: string, names = ["h1", "h2"]) =>
    names.filter(
      (name) =>
        dockerOn(name, ["ps", "-aq", "--filter", `label=${SANDBOX_ID_LABEL}=${sandboxId}`]) !== "",
    );

  const waitUntil = async (what: string, check: () => boolean, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  beforeAll(async () => {
    expect(hosts.map((host) => host.name)).toEqual(expect.arrayContaining(["h1", "h2"]));
    plane = await startPlane();
  });

  afterAll(async () => {
    // Whatever happened, both hosts answer again and nothing of this suite is left on them.
    const problems: unknown[] = [];
    try {
      setLink("h2", "up");
      script("docker-hosts-up.sh", String(hosts.length));
    } catch (error) {
      problems.push(error);
    }
    if (plane) {
      const listed = await api("GET", "/api/v1/sandboxes/search?limit=100").catch(() => null);
      for (const sandbox of listed?.body?.items ?? []) {
        await api("DELETE", `/api/v1/sandboxes/${sandbox.id}`).catch(() => undefined);
      }
      await plane.server.close();
    }
    const instanceFile = path.join(dataDir, "instance-id");
    const instance = existsSync(instanceFile) ? readFileSync(instanceFile, "utf8").trim() : null;
    for (const host of instance === null ? [] : hosts) {
      const left = dockerOn(host.name, [
        "ps",
        "-aq",
        "--filter",
        `label=sandbox-server.managed=${instance}`,
      ]);
      if (left) dockerOn(host.name, ["rm", "-f", ...left.split("\n")]);
      const networks = dockerOn(host.name, [
        "network",
        "ls",
        "-q",
        "--filter",
        `label=sandbox-server.managed=${instance}`,
      ]);
      if (networks) dockerOn(host.name, ["network", "rm", ...networks.split("\n")]);
    }
    rmSync(dataDir, { recursive: true, force: true });
    if (process.env.MULTI_HOST_LOGS) console.log(logs);
    // Reported once the clean-up is done, not instead of it.
    if (problems.length > 0) throw problems[0];
  });

  // Shared by the steps below, which follow one another as one story.
  const onH1: { id: string; sandboxId: string }[] = [];
  let onH2: { id: string; sandboxId: string };

  it("places each new sandbox on the host with the most free capacity, reached at that host's address", async () => {
    // Empty hosts tie: the first listed takes the first; then the emptier one; then h1 again.
    for (let i = 0; i < 3; i++) {
      const conversation = await newConversation();
      const host = plane.runtime.hostOf(conversation.sandboxId);
      expect(containerHosts(conversation.sandboxId)).toEqual([host]);
      if (host === "h2") onH2 = conversation;
      else onH1.push(conversation);
      const sandbox = (await api("GET", `/api/v1/sandboxes/${conversation.sandboxId}`)).body;
      expect(sandbox.status).toBe("RUNNING");
      expect(sandbox.agent_server_url).toMatch(
        new RegExp(`^http://${addressOf(host ?? "")}:\\d+$`),
      );
      expect((await send(conversation.id, `echo placed-on-${host}`)).status).toBe(200);
    }
    expect(onH1).toHaveLength(2);
    expect(onH2).toBeDefined();
  });

  it("finds every sandbox on its host again after a control-plane restart", async () => {
    await plane.server.close();
    plane = await startPlane();
    for (const { sandboxId } of [...onH1, onH2]) {
      expect((await api("GET", `/api/v1/sandboxes/${sandboxId}`)).body.status).toBe("RUNNING");
    }
    expect(plane.runtime.hostOf(onH2.sandboxId)).toBe("h2");
    expect(onH1.map(({ sandboxId }) => plane.runtime.hostOf(sandboxId))).toEqual(["h1", "h1"]);
    expect((await send(onH2.id, "echo after-restart")).status).toBe(200);
  });

  it("a host cut off from the network: its sandboxes go ERROR naming it, sends get 503, new sandboxes avoid it, and it is adopted again when back", async () => {
    setLink("h2", "down");
    const errored = await waitForSandbox(onH2.sandboxId, "ERROR", HOST_LOSS_BOUND_MS);
    expect(errored.status_detail).toMatch(
      /Docker host h2 \(tcp:\/\/10\.[\d.]+:2375\) stopped answering/,
    );
    const refused = await send(onH2.id, "echo to-a-lost-host");
    expect(refused.status).toBe(503);
    expect(refused.body.message).toContain("Docker host h2");
    // The other host's sandboxes are untouched.
    for (const { id, sandboxId } of onH1) {
      expect((await api("GET", `/api/v1/sandboxes/${sandboxId}`)).body.status).toBe("RUNNING");
      expect((await send(id, "echo h1-still-serves")).status).toBe(200);
    }
    // h1 holds two and h2 one: capacity alone would choose h2, which is down.
    const avoiding = await newSandbox();
    expect(plane.runtime.hostOf(avoiding)).toBe("h1");
    expect(containerHosts(avoiding, ["h1"])).toEqual(["h1"]);
    expect((await api("DELETE", `/api/v1/sandboxes/${avoiding}`)).status).toBe(200);

    // Back on the network: the container never stopped, so the sandbox is adopted as it is.
    setLink("h2", "up");
    const adopted = await waitForSandbox(onH2.sandboxId, "RUNNING", HOST_LOSS_BOUND_MS);
    expect(adopted.status_detail).toMatch(/Adopted again: Docker host h2 .* answers again/);
    expect((await send(onH2.id, "echo adopted-again")).status).toBe(200);
  });

  it("a host killed outright: ERROR naming it, 503, placement elsewhere; when its daemon is back the dead sandboxes stay ERROR until resumed there", async () => {
    script("kill-docker-host.sh", "h2");
    const errored = await waitForSandbox(onH2.sandboxId, "ERROR", HOST_LOSS_BOUND_MS);
    expect(errored.status_detail).toMatch(/Docker host h2 .* stopped answering/);
    expect((await send(onH2.id, "echo to-a-dead-host")).status).toBe(503);
    const avoiding = await newSandbox();
    expect(plane.runtime.hostOf(avoiding)).toBe("h1");
    expect((await api("DELETE", `/api/v1/sandboxes/${avoiding}`)).status).toBe(200);

    // Its dockerd comes back over the same data: the killed containers are there, exited.
    script("docker-hosts-up.sh", String(hosts.length));
    const h2 = plane.runtime.hosts.find((host) => host.name === "h2");
    await waitUntil("h2 answering the control plane", () => h2?.isUp === true);
    expect(
      dockerOn("h2", ["inspect", "-f", "{{.State.Running}}", `sandbox-server-${onH2.sandboxId}`]),
    ).toBe("false");
    // Nothing runs there to adopt: after a few probe passes (each would report a recovery) it is
    // still ERROR.
    for (let pass = 0; pass < 3; pass++) await plane.runtime.probeAll();
    expect((await api("GET", `/api/v1/sandboxes/${onH2.sandboxId}`)).body.status).toBe("ERROR");
    // Resume starts the same container again on h2 (same key, same files).
    const resumed = await api("POST", `/api/v1/sandboxes/${onH2.sandboxId}/resume`);
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.status).toBe("RUNNING");
    expect(containerHosts(onH2.sandboxId)).toEqual(["h2"]);
    expect((await send(onH2.id, "echo resumed-on-h2")).status).toBe(200);
  });
});
