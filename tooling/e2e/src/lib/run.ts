import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end with stdin closed; never throws for its exit status. */
export async function runStatus(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const running = execFileAsync(command, args, { ...options, maxBuffer: 256 * 1024 * 1024 });
  running.child.stdin?.end();
  try {
    return { code: 0, ...(await running) };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== "number") throw error;
    return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** Runs a command; its stdout, or an error carrying the command and the tail of its output. */
export async function run(command: string, args: string[], options: RunOptions = {}) {
  const result = await runStatus(command, args, options);
  if (result.code !== 0) {
    const tail = `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-40).join("\n");
    throw new Error(`${command} ${args.join(" ")} exited with ${result.code}:\n${tail}`);
  }
  return result.stdout;
}
