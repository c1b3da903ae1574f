import { readFileSync } from "node:fs";
import path from "node:path";
import { createSandboxClient, type SandboxClient } from "@sandbox-server/client";
import { CliError } from "./errors";

export const DEFAULT_SERVER_URL = "http://127.0.0.1:3000";

export interface Connection {
  url: string;
  apiKey: string;
}

/** Where the server is: SANDBOX_SERVER_URL, else the local default. */
export function serverUrl(env: NodeJS.ProcessEnv): string {
  return env.SANDBOX_SERVER_URL?.trim() || DEFAULT_SERVER_URL;
}

/** The admin key file a local server writes: $DATA_DIR/admin-api-key, else ./.data/admin-api-key. */
export function adminKeyFile(env: NodeJS.ProcessEnv, cwd: string): string {
  return path.resolve(cwd, env.DATA_DIR?.trim() || ".data", "admin-api-key");
}

/** SANDBOX_API_KEY, else the local server's admin key file. */
export function resolveConnection(env: NodeJS.ProcessEnv, cwd: string): Connection {
  const url = serverUrl(env);
  const fromEnv = env.SANDBOX_API_KEY?.trim();
  if (fromEnv) return { url, apiKey: fromEnv };
  const file = adminKeyFile(env, cwd);
  let apiKey: string;
  try {
    apiKey = readFileSync(file, "utf8").trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new CliError(
      `no API key: set SANDBOX_API_KEY, or run where the server's data directory is (${file}: ${code})`,
    );
  }
  if (!apiKey) throw new CliError(`no API key: ${file} is empty; set SANDBOX_API_KEY`);
  return { url, apiKey };
}

/** What every command that talks to the server uses; created on first use. */
export interface Session {
  readonly url: string;
  client(): SandboxClient;
}

export function createSession(env: NodeJS.ProcessEnv, cwd: string): Session {
  let client: SandboxClient | undefined;
  return {
    url: serverUrl(env),
    client() {
      client ??= createSandboxClient(resolveConnection(env, cwd));
      return client;
    },
  };
}
