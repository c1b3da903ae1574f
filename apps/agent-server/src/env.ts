import path from "node:path";
import type { LogLevel } from "./logger";

/**
 * The agent server's configuration, read once at start. This is the only module that reads
 * process.env; everything else takes options. It uses no zod on purpose: the start path stays
 * light (see "Footprint" in the README).
 */
export interface AgentServerConfig {
  port: number;
  host: string;
  sessionApiKeys: string[];
  dataDir: string;
  workspaceDir: string;
  llmApiKey: string | undefined;
  logLevel: LogLevel;
  /** Environment for commands run in the sandbox: ours without the secrets. */
  commandEnv: Record<string, string>;
  /** The file routes serve only paths inside this directory (after resolving symlinks). */
  filesRoot: string;
  limits: HttpLimits;
}

/** Bounds on what one client may hold or send. */
export interface HttpLimits {
  /** Time to receive a request's headers (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included (Node's `requestTimeout`). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open (Node's `keepAliveTimeout`). */
  keepAliveTimeoutMs: number;
  /** A request body of which no byte arrives for this long is answered 408 and cut. */
  bodyIdleTimeoutMs: number;
  /** Largest JSON request body; more is 413. */
  jsonBodyLimitBytes: number;
  /** Largest uploaded file; more is 413. */
  uploadLimitBytes: number;
}

export const DEFAULT_LIMITS: HttpLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 5_000,
  bodyIdleTimeoutMs: 10_000,
  // Messages may carry images as data URLs.
  jsonBodyLimitBytes: 25 * 1024 * 1024,
  uploadLimitBytes: 100 * 1024 * 1024,
};

export class ConfigError extends Error {}

const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];
const HOUR_MS = 3_600_000;

/** Each flag and the variable it overrides. */
const FLAGS = {
  port: "PORT",
  host: "HOST",
  "files-root": "FILES_ROOT",
  "headers-timeout-ms": "HEADERS_TIMEOUT_MS",
  "request-timeout-ms": "REQUEST_TIMEOUT_MS",
  "keep-alive-timeout-ms": "KEEP_ALIVE_TIMEOUT_MS",
  "body-idle-timeout-ms": "BODY_IDLE_TIMEOUT_MS",
  "json-body-limit-bytes": "JSON_BODY_LIMIT_BYTES",
  "upload-limit-bytes": "UPLOAD_LIMIT_BYTES",
} as const;
type Flag = keyof typeof FLAGS;

const secretName = /^(SESSION_API_KEY|OH_SESSION_API_KEYS_\d+|LLM_API_KEY)$/;

/** Builds the configuration from arguments (`--port N`, `--host=H`, ...) over the environment. */
export function parseConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): AgentServerConfig {
  const flags = parseFlags(argv);
  const problems: string[] = [];
  // A flag wins over its variable; an empty variable counts as unset.
  const raw = (flag: Flag): string | undefined => {
    const value = flags[flag] ?? env[FLAGS[flag]];
    return value === "" ? undefined : value;
  };
  const integer = (flag: Flag, fallback: number, min: number, max: number): number => {
    const text = raw(flag);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (/^\d+$/.test(text.trim()) && value >= min && value <= max) return value;
    problems.push(`${FLAGS[flag]} (--${flag}): expected an integer from ${min} to ${max}`);
    return fallback;
  };

  const port = integer("port", 8000, 0, 65_535);
  const limits: HttpLimits = {
    headersTimeoutMs: integer("headers-timeout-ms", DEFAULT_LIMITS.headersTimeoutMs, 1, HOUR_MS),
    requestTimeoutMs: integer("request-timeout-ms", DEFAULT_LIMITS.requestTimeoutMs, 1, HOUR_MS),
    keepAliveTimeoutMs: integer(
      "keep-alive-timeout-ms",
      DEFAULT_LIMITS.keepAliveTimeoutMs,
      1,
      HOUR_MS,
    ),
    bodyIdleTimeoutMs: integer(
      "body-idle-timeout-ms",
      DEFAULT_LIMITS.bodyIdleTimeoutMs,
      1,
      HOUR_MS,
    ),
    jsonBodyLimitBytes: integer(
      "json-body-limit-bytes",
      DEFAULT_LIMITS.jsonBodyLimitBytes,
      1,
      2 ** 30,
    ),
    uploadLimitBytes: integer(
      "upload-limit-bytes",
      DEFAULT_LIMITS.uploadLimitBytes,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    problems.push("HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS");
  }
  const filesRoot = raw("files-root") ?? "/";
  if (!path.isAbsolute(filesRoot)) problems.push("FILES_ROOT (--files-root): must be absolute");
  const logLevel = (env.LOG_LEVEL || "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL: expected one of ${LOG_LEVELS.join(", ")}`);
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid agent-server configuration: ${problems.join("; ")}`);
  }
  return {
    port,
    host: raw("host") ?? "127.0.0.1",
    sessionApiKeys: readSessionKeys(env),
    dataDir: path.resolve(cwd, env.DATA_DIR || ".agent-server"),
    workspaceDir: path.resolve(cwd, env.WORKSPACE_DIR || "."),
    llmApiKey: env.LLM_API_KEY || undefined,
    logLevel,
    commandEnv: Object.fromEntries(
      Object.entries(env).filter(
        (entry): entry is [string, string] => entry[1] !== undefined && !secretName.test(entry[0]),
      ),
    ),
    filesRoot: path.normalize(filesRoot),
    limits,
  };
}

/** Reads this process's arguments and environment. */
export function readConfig(): AgentServerConfig {
  return parseConfig(process.argv.slice(2), process.env, process.cwd());
}

/**
 * `--name value` and `--name=value` for the flags in FLAGS, nothing else. By hand rather than
 * util.parseArgs, whose modules node loads on first use: a millisecond of every sandbox's start.
 */
function parseFlags(argv: readonly string[]): Partial<Record<Flag, string>> {
  const values: Partial<Record<Flag, string>> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [, name = "", inline] = /^--([^=]+)(?:=(.*))?$/s.exec(arg) ?? [];
    if (!isFlag(name)) throw invalidArguments(`unexpected argument ${JSON.stringify(arg)}`);
    // A value that looks like a flag is more likely a forgotten value (parseArgs says the same).
    const value = inline ?? argv[++i];
    if (value === undefined || (inline === undefined && value.startsWith("-"))) {
      throw invalidArguments(`--${name} needs a value (--${name}=VALUE if it starts with "-")`);
    }
    values[name] = value;
  }
  return values;
}

function isFlag(name: string): name is Flag {
  return Object.hasOwn(FLAGS, name);
}

function invalidArguments(reason: string): ConfigError {
  const expected = Object.keys(FLAGS)
    .map((flag) => `--${flag}`)
    .join(", ");
  return new ConfigError(`Invalid agent-server arguments: ${reason} (expected ${expected})`);
}

function readSessionKeys(env: Readonly<Record<string, string | undefined>>): string[] {
  const keys = Object.entries(env)
    .filter(([name]) => name === "SESSION_API_KEY" || /^OH_SESSION_API_KEYS_\d+$/.test(name))
    .map(([, value]) => value ?? "")
    .filter((value) => value !== "");
  return [...new Set(keys)];
}
