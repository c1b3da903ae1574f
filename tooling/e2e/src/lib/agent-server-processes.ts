import { readdirSync, readFileSync } from "node:fs";

/** Processes whose command line runs the agent server (its bundle, or the built binary). */
export function agentServerProcesses(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
      if (argv.some((arg) => /(^|\/)agent-server(\.js)?$/.test(arg))) {
        found.push(`${entry} ${argv.join(" ")}`);
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
