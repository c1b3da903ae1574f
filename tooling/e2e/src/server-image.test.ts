import { randomBytes } from "node:crypto";
import { DEFAULT_SANDBOX_IMAGE } from "@sandbox-server/runtime";
import { afterAll, beforeAll, expect, it } from "vitest";
import { docker, dockerAnswers, dockerLines, imageExists } from "./lib/docker";
import { until } from "./lib/poll";
import { runStatus } from "./lib/run";

/**
 * The control plane's own image, run the way README.md documents it: host network, the host's
 * Docker socket, a data volume, the docker runtime. A sandbox goes through it from start to
 * delete; the control plane then stops on SIGTERM. Everything made here is removed afterwards,
 * the sandbox containers, network and host firewall rules included should a step fail.
 */
const IMAGE = process.env.SERVER_IMAGE ?? "sandbox-server/server:latest";
const SANDBOX_IMAGE = process.env.SANDBOX_IMAGE ?? DEFAULT_SANDBOX_IMAGE;
const FIREWALL_COMMENT = "sandbox-server: sandboxes must not reach the host";
const MANAGED = "sandbox-server.managed";

const name = `sandbox-server-smoke-${randomBytes(4).toString("hex")}`;
const volume = `${name}-data`;
let baseUrl = "";
let key = "";
let instance = "";

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected structurally
  body: any;
}

async function api(method: string, route: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(75_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** The control plane's output: it logs to stdout and stderr. */
async function logs(): Promise<string> {
  const { stdout, stderr } = await runStatus("docker", ["logs", name]);
  return stdout + stderr;
}
const bridgeOf = async (network: string) =>
  (
    await runStatus("docker", [
      "network",
      "inspect",
      "-f",
      '{{index .Options "com.docker.network.bridge.name"}}',
      network,
    ])
  ).stdout.trim();
const managedContainers = () =>
  dockerLines("ps", "-aq", "--filter", `label=${MANAGED}=${instance}`);

async function expectRunning() {
  const running = await docker("inspect", "-f", "{{.State.Running}}", name);
  if (running !== "true") throw new Error(`the control-plane container stopped:\n${await logs()}`);
}

/** The host's unix socket, mounted at the default path inside the container. */
function dockerSocket(): string {
  const host = process.env.DOCKER_HOST ?? "";
  if (host === "") return "/var/run/docker.sock";
  if (host.startsWith("unix://")) return host.slice("unix://".length);
  throw new Error(
    `the image smoke test mounts a local unix socket; DOCKER_HOST=${host} is not one`,
  );
}

beforeAll(async () => {
  if (!(await dockerAnswers()))
    throw new Error("no Docker daemon answers (tooling/docker/docker-up.sh)");
  if (!(await imageExists(IMAGE))) throw new Error(`${IMAGE} is missing: npm run image:server`);
  if (!(await imageExists(SANDBOX_IMAGE)))
    throw new Error(`${SANDBOX_IMAGE} is missing: npm run image`);
  await docker("volume", "create", "--label", "sandbox-server.smoke=1", volume);
  // PORT=0 on the host network: the port the kernel picks is in the banner it prints.
  // biome-ignore format: the flags of one docker run, as README.md shows them
  await docker(
    "run", "-d", "--name", name, "--init", "--network", "host", "--cap-add", "NET_ADMIN",
    "-v", `${dockerSocket()}:/var/run/docker.sock`, "-v", `${volume}:/data`,
    "-e", "PORT=0", "-e", "SANDBOX_RUNTIME=docker", "-e", `SANDBOX_IMAGE=${SANDBOX_IMAGE}`,
    IMAGE,
  );
  baseUrl = await until("the control plane's listening banner", async () => {
    await expectRunning();
    return /Sandbox Server is listening on (http:\/\/[^\s]+)/.exec(await logs())?.[1];
  });
  await until("/health of the control-plane container", async () => {
    await expectRunning();
    const ok = await fetch(`${baseUrl}/health`).then(
      (r) => r.ok,
      () => false,
    );
    return ok ? true : undefined;
  });
  key = await docker("exec", name, "cat", "/data/admin-api-key");
  instance = await docker("exec", name, "cat", "/data/instance-id");
}, 120_000);

afterAll(async () => {
  if (!instance && (await runStatus("docker", ["volume", "inspect", volume])).code === 0) {
    const read = await runStatus("docker", [
      "run",
      "--rm",
      "--network",
      "none",
      "-v",
      `${volume}:/data:ro`,
      "--entrypoint",
      "cat",
      IMAGE,
      "/data/instance-id",
    ]);
    instance = read.stdout.trim();
  }
  await runStatus("docker", ["rm", "-f", name]);
  if (instance) {
    const leftovers = await managedContainers();
    if (leftovers.length > 0) await runStatus("docker", ["rm", "-f", ...leftovers]);
    const network = `sandbox-server-${instance}`;
    const bridge = await bridgeOf(network);
    if (bridge) {
      await runStatus("docker", ["network", "rm", network]);
      await removeFirewallRules(bridge);
    }
  }
  await runStatus("docker", ["volume", "rm", "-f", volume]);
});

/** The rules the control plane added for a sandbox bridge (when a failed run left them). */
async function removeFirewallRules(bridge: string) {
  for (const chain of ["INPUT", "DOCKER-USER"]) {
    const listed = await runStatus("iptables", ["-S", chain]).catch(() => null);
    for (const rule of listed?.stdout.split("\n") ?? []) {
      if (!rule.includes(`-i ${bridge} `) || !rule.includes(FIREWALL_COMMENT)) continue;
      await runStatus("bash", ["-c", `iptables -w 5 ${rule.replace(/^-A /, "-D ")}`]);
    }
  }
}

it("starts process sandboxes from the agent-server bundle's code cache", async () => {
  const status = await docker(
    "run",
    "--rm",
    "--network",
    "none",
    IMAGE,
    "node",
    "/app/apps/agent-server/dist/agent-server.js",
    "--code-cache-status",
  );
  expect(status).toBe("used");
});

it("follows events on its ingest worker's thread, started with the first conversation", async () => {
  const created = await api("POST", "/api/v1/app-conversations", {
    initial_message: { role: "user", content: [{ type: "text", text: "echo smoke" }], run: true },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await api("GET", `/api/v1/app-conversations/${created.body.id}?wait_for=settled&timeout_s=60`);
  expect(await logs()).toContain("events are followed and stored on the ingest worker's thread");
  expect((await api("DELETE", `/api/v1/sandboxes/${created.body.sandbox_id}`)).status).toBe(200);
});

it("runs a sandbox from start to delete, then stops on SIGTERM leaving no sandbox network", async () => {
  const network = `sandbox-server-${instance}`;
  const created = await api("POST", "/api/v1/sandboxes", { labels: { purpose: "smoke" } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id: string = created.body.id;

  const read = await api("GET", `/api/v1/sandboxes/${id}?wait_for=RUNNING&timeout_s=60`);
  expect(read.body.status, read.body.status_detail).toBe("RUNNING");
  const agentHealth = await fetch(`${read.body.agent_server_url}/health`);
  expect(agentHealth.ok).toBe(true);
  expect(await managedContainers()).toHaveLength(1);

  // The image carries iptables: with NET_ADMIN on the host network the control plane protects
  // the host from the sandbox network itself, and warns when it cannot.
  expect(
    await docker(
      "run",
      "--rm",
      "--network",
      "none",
      "--entrypoint",
      "sh",
      IMAGE,
      "-c",
      "command -v iptables",
    ),
  ).not.toBe("");
  expect(await logs()).not.toContain("can reach services listening on the host's addresses");
  expect(await bridgeOf(network)).not.toBe("");

  expect((await api("DELETE", `/api/v1/sandboxes/${id}`)).status).toBe(200);
  await until(`sandbox ${id} gone after its delete`, async () =>
    (await api("GET", `/api/v1/sandboxes/${id}`)).status === 404 ? true : undefined,
  );
  expect(await managedContainers()).toEqual([]);

  await docker("stop", "-t", "30", name);
  expect(await docker("inspect", "-f", "{{.State.ExitCode}}", name)).toBe("0");
  // With no sandbox left, the control plane removes its network (and firewall rules) on shutdown.
  expect(await bridgeOf(network)).toBe("");
});
