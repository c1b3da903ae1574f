import path from "node:path";
import { z } from "zod";

/**
 * The agent server's configuration, read once at start. This is the only module that reads
 * process.env; everything else takes options.
 */
export interface AgentServerConfig {
  port: number;
  host: string;
  sessionApiKeys: string[];
  dataDir: string;
  workspaceDir: string;
  llmApiKey: string | undefined;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Environment for commands run in the sandbox: ours without the secrets. */
  commandEnv: Record<string, string>;
}

export class ConfigError extends Error {}

const blankToUndefined = (value: unknown) => (value === "" ? undefined : value);

const Settings = z.object({
  PORT: z.preprocess(blankToUndefined, z.coerce.number().int().min(0).max(65535).default(8000)),
  HOST: z.preprocess(blankToUndefined, z.string().min(1).default("127.0.0.1")),
  DATA_DIR: z.preprocess(blankToUndefined, z.string().optional()),
  WORKSPACE_DIR: z.preprocess(blankToUndefined, z.string().optional()),
  LLM_API_KEY: z.preprocess(blankToUndefined, z.string().optional()),
  LOG_LEVEL: z.preprocess(
    blankToUndefined,
    z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  ),
});

const secretName = /^(SESSION_API_KEY|OH_SESSION_API_KEYS_\d+|LLM_API_KEY)$/;

/** Builds the configuration from arguments (`--port N`, `--host H`) over the environment. */
export function parseConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): AgentServerConfig {
  const flags = parseFlags(argv);
  const parsed = Settings.safeParse({
    ...env,
    PORT: flags.port ?? env.PORT,
    HOST: flags.host ?? env.HOST,
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".")}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid agent-server configuration: ${problems.join("; ")}`);
  }
  const settings = parsed.data;
  return {
    port: settings.PORT,
    host: settings.HOST,
    sessionApiKeys: readSessionKeys(env),
    dataDir: path.resolve(cwd, settings.DATA_DIR ?? ".agent-server"),
    workspaceDir: path.resolve(cwd, settings.WORKSPACE_DIR ?? "."),
    llmApiKey: settings.LLM_API_KEY,
    logLevel: settings.LOG_LEVEL,
    commandEnv: Object.fromEntries(
      Object.entries(env).filter(
        (entry): entry is [string, string] => entry[1] !== undefined && !secretName.test(entry[0]),
      ),
    ),
  };
}

/** Reads this process's arguments and environment. */
export function readConfig(): AgentServerConfig {
  return parseConfig(process.argv.slice(2), process.env, process.cwd());
}

function readSessionKeys(env: Readonly<Record<string, string | undefined>>): string[] {
  const keys = Object.entries(env)
    .filter(([name]) => name === "SESSION_API_KEY" || /^OH_SESSION_API_KEYS_\d+$/.test(name))
    .map(([, value]) => value ?? "")
    .filter((value) => value !== "");
  return [...new Set(keys)];
}

function parseFlags(argv: readonly string[]): { port?: string; host?: string } {
  const flags: { port?: string; host?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [name, inline] = arg.split("=", 2) as [string, string | undefined];
    if (name !== "--port" && name !== "--host") {
      throw new ConfigError(`Unknown argument ${JSON.stringify(arg)} (expected --port, --host)`);
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`Missing value after ${name}`);
    flags[name === "--port" ? "port" : "host"] = value;
  }
  return flags;
}
