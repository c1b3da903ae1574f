import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/** A control plane in its own process (the built apps/server bundle), process runtime. */
export interface TestServer {
  url: string;
  apiKey: string;
  dataDir: string;
  /** Removes every sandbox of the admin (agent servers outlive the control plane), then stops. */
  stop(): Promise<void>;
}

const defaultEntry = fileURLToPath(new URL("../../../apps/server/dist/server.js", import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output()}`);
    const ok = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`server did not answer /health: ${output()}`);
}

async function deleteAllSandboxes(url: string, apiKey: string) {
  const headers = { authorization: `Bearer ${apiKey}` };
  const page = (await (await fetch(`${url}/api/v1/sandboxes/search`, { headers })).json()) as {
    items: { id: string }[];
  };
  for (const sandbox of page.items) {
    await fetch(`${url}/api/v1/sandboxes/${sandbox.id}`, { method: "DELETE", headers });
  }
}

export async function startTestServer(): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "sandbox-client-test-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = "";
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    SANDBOX_RUNTIME: "process",
    LOG_LEVEL: "warn",
    ALLOW_UNISOLATED_MULTI_USER: "true",
  };
  // The admin key comes from the key file, as it does for a person.
  delete env.ADMIN_API_KEY;
  const child = spawn(process.execPath, [process.env.TEST_SERVER_ENTRY ?? defaultEntry], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await waitForHealth(url, child, () => output);
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const apiKey = readFileSync(path.join(dataDir, "admin-api-key"), "utf8").trim();
  return {
    url,
    apiKey,
    dataDir,
    async stop() {
      try {
        await deleteAllSandboxes(url, apiKey);
      } finally {
        child.kill("SIGTERM");
        await exited;
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
