import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  DockerRuntime,
  isDockerAvailable,
  ProcessRuntime,
  type SandboxRuntime,
} from "@sandbox-server/runtime";
import type { Logger } from "pino";
import type { Env } from "./env";

/** `auto`: Docker when a daemon answers, else processes. The choice is logged. */
export async function selectRuntime(env: Env, log: Logger): Promise<SandboxRuntime> {
  const docker = { socketPath: env.DOCKER_SOCKET };
  let kind = env.SANDBOX_RUNTIME;
  if (kind === "auto") {
    kind = (await isDockerAvailable({ docker })) ? "docker" : "process";
    log.info(
      { runtime: kind },
      `runtime auto-selected: ${kind === "docker" ? "Docker daemon answered" : "no Docker daemon, using processes"}`,
    );
  }
  const runtimeLog = log.child({ component: "runtime" });
  if (kind === "docker") {
    return new DockerRuntime({
      docker,
      image: env.SANDBOX_IMAGE,
      instance: instanceId(env.DATA_DIR),
      logger: runtimeLog,
    });
  }
  return new ProcessRuntime({
    rootDir: path.resolve(env.DATA_DIR, "sandboxes"),
    agentServerEntry: path.resolve(env.AGENT_SERVER_ENTRY),
    logger: runtimeLog,
  });
}

/**
 * A stable name for this control plane (kept in its data directory), so that two control planes
 * on one Docker daemon never see — or reconcile away — each other's containers.
 */
export function instanceId(dataDir: string): string {
  const file = path.resolve(dataDir, "instance-id");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const id = `cp-${randomBytes(6).toString("hex")}`;
  writeFileSync(file, `${id}\n`);
  return id;
}
