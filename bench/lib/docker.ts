import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { DEFAULT_SANDBOX_IMAGE } from "@sandbox-server/runtime";

export const DOCKER_IMAGE = DEFAULT_SANDBOX_IMAGE;
const SOCKET = "/var/run/docker.sock";

function dockerRequest(
  method: string,
  route: string,
  socketPath = SOCKET,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = http.request({ socketPath, path: route, method, timeout: 10_000 }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve({ status: 0, body: "" }));
    req.end();
  });
}

/** null when Docker figures can run; otherwise why they are skipped. */
export async function dockerUnavailable(socketPath = SOCKET): Promise<string | null> {
  if ((await dockerRequest("GET", "/_ping", socketPath)).status !== 200) {
    return "skipped: no docker";
  }
  const image = await dockerRequest(
    "GET",
    `/images/${encodeURIComponent(DOCKER_IMAGE)}/json`,
    socketPath,
  );
  if (image.status !== 200) return `skipped: no docker (image ${DOCKER_IMAGE} missing)`;
  return null;
}

/** The control plane's instance id: the value of its containers' `sandbox-server.managed` label. */
export function instanceId(dataDir: string): string | null {
  try {
    return readFileSync(path.join(dataDir, "instance-id"), "utf8").trim();
  } catch {
    return null;
  }
}

/** Sandbox ids of the running containers a control plane manages (by its instance label). */
export async function managedSandboxIds(instance: string): Promise<string[]> {
  const filters = encodeURIComponent(
    JSON.stringify({ label: [`sandbox-server.managed=${instance}`], status: ["running"] }),
  );
  const res = await dockerRequest("GET", `/containers/json?filters=${filters}`);
  if (res.status !== 200) return [];
  const containers = JSON.parse(res.body) as { Labels?: Record<string, string> }[];
  return containers.flatMap((c) => c.Labels?.["sandbox-server.sandbox-id"] ?? []);
}

/** Force-removes every container a control plane left behind (e.g. a warm pool's), then its network. */
export async function removeManagedContainers(instance: string): Promise<number> {
  const filters = encodeURIComponent(
    JSON.stringify({ label: [`sandbox-server.managed=${instance}`] }),
  );
  const res = await dockerRequest("GET", `/containers/json?all=1&filters=${filters}`);
  if (res.status !== 200) return 0;
  const containers = JSON.parse(res.body) as { Id: string }[];
  for (const c of containers) await dockerRequest("DELETE", `/containers/${c.Id}?force=1&v=1`);
  // And its sandbox network, which outlives the server by design (sandboxes keep running).
  const networks = await dockerRequest("GET", `/networks?filters=${filters}`);
  if (networks.status === 200) {
    for (const n of JSON.parse(networks.body) as { Id: string }[]) {
      await dockerRequest("DELETE", `/networks/${n.Id}`);
    }
  }
  return containers.length;
}
