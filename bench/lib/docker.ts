import http from "node:http";

export const DOCKER_IMAGE = "sandbox-server/agent-server:latest";

function dockerGet(path: string, socketPath: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath, path, timeout: 3000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
  });
}

/** null when Docker figures can run; otherwise why they are skipped. */
export async function dockerUnavailable(
  socketPath = "/var/run/docker.sock",
): Promise<string | null> {
  if ((await dockerGet("/_ping", socketPath)) !== 200) return "skipped: no docker";
  const image = await dockerGet(`/images/${encodeURIComponent(DOCKER_IMAGE)}/json`, socketPath);
  if (image !== 200) return `skipped: no docker (image ${DOCKER_IMAGE} missing)`;
  return null;
}
