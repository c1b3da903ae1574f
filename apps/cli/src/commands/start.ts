import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, Option } from "commander";
import type { CommandContext } from "../context";
import { CliError } from "../errors";
import { portNumber } from "../parse";

interface StartOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  runtime?: string;
  build: boolean;
}

/** The repository this command belongs to: the nearest directory above it with apps/server. */
export function findRepoRoot(from: string): string {
  let dir = from;
  for (;;) {
    if (existsSync(path.join(dir, "apps", "server", "package.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new CliError(`cannot find the repository's apps/server above ${from}`);
    dir = parent;
  }
}

/** `npm start` with options: build the server when needed, then run tooling/dev/start.mjs. */
async function start(ctx: CommandContext, options: StartOptions): Promise<number> {
  const root = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
  if (options.build) {
    const turbo = path.join(root, "node_modules", "turbo", "bin", "turbo");
    const built = spawnSync(
      process.execPath,
      [turbo, "run", "build", "--filter=@sandbox-server/server...", "--output-logs=errors-only"],
      { cwd: root, stdio: "inherit", env: ctx.env },
    );
    if (built.status !== 0) throw new CliError("building the server failed (see above)");
  }
  const env: NodeJS.ProcessEnv = { ...ctx.env };
  if (options.port !== undefined) env.PORT = String(options.port);
  if (options.host) env.HOST = options.host;
  // tooling/dev/start.mjs runs in the repository root; the data directory is the caller's (as the
  // other commands look for the admin key in ./.data or $DATA_DIR where they run).
  env.DATA_DIR = path.resolve(ctx.cwd, options.dataDir ?? env.DATA_DIR ?? ".data");
  if (options.runtime) env.SANDBOX_RUNTIME = options.runtime;
  // Its own process group: Ctrl-C reaches this process alone, which passes exactly one signal on
  // (a terminal's SIGINT to the whole group would reach the server twice: once directly and once
  // through tooling/dev/start.mjs, and a second signal ends it without its graceful shutdown).
  const server = spawn(process.execPath, [path.join(root, "tooling", "dev", "start.mjs")], {
    cwd: root,
    env,
    stdio: "inherit",
    detached: true,
  });
  const forwards: [NodeJS.Signals, () => void][] = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map(
    (signal) => [signal, () => server.kill(signal === "SIGHUP" ? "SIGTERM" : signal)],
  );
  for (const [signal, forward] of forwards) process.on(signal, forward);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.once("exit", (code, signal) => {
      for (const [name, forward] of forwards) process.off(name, forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

export function registerStart(program: Command, ctx: CommandContext): void {
  program
    .command("start")
    .description(
      "start the control plane in the foreground (like `npm start`); Ctrl-C stops it, sandboxes keep running",
    )
    .option(
      "--port <port>",
      "port to listen on (PORT, default 3000; 0 picks a free one)",
      portNumber,
    )
    .option("--host <host>", "address to listen on (HOST, default 127.0.0.1)")
    .option(
      "--data-dir <dir>",
      "SQLite file, admin key file and sandboxes (DATA_DIR, default ./.data)",
    )
    .addOption(
      new Option("--runtime <runtime>", "sandbox runtime (SANDBOX_RUNTIME, default auto)").choices([
        "auto",
        "docker",
        "process",
      ]),
    )
    .option("--no-build", "do not build the server first (it must be built already)")
    .action(async (options: StartOptions) => {
      process.exitCode = await start(ctx, options);
    });
}
