import { readdir, readFile } from "node:fs/promises";

const NUL = Buffer.from("\0");

/**
 * What Linux says about a pid. Read from /proc rather than remembered, so that it is also true
 * for processes this control plane did not start (adopted after a restart).
 * - `alive`: running or sleeping
 * - `stopped`: SIGSTOP'ed (stat state `T`, or `t` under a tracer)
 * - `gone`: no such process, or a zombie waiting to be reaped
 */
export type ProcState = "alive" | "stopped" | "gone";

export async function readProcState(pid: number): Promise<ProcState> {
  const stat = await readProcFile(pid, "stat");
  if (stat === null) return "gone";
  const state = parseStatState(stat);
  if (state === "Z" || state === "X" || state === "x") return "gone";
  if (state === "T" || state === "t") return "stopped";
  return "alive";
}

/** The process's argv, or null once it is gone. */
export async function readCmdline(pid: number): Promise<string[] | null> {
  const cmdline = await readProcFile(pid, "cmdline");
  if (cmdline === null || cmdline === "") return null;
  return cmdline.replace(/\0$/, "").split("\0");
}

/**
 * Every live (non-zombie) process whose initial environment holds `name=value`, with its process
 * group. The environment is inherited by everything the agent server starts — also commands it
 * runs in sessions of their own, and orphans that init adopted — which a walk of the process tree
 * or of one process group would miss. Zombies are left out: they are dead, yet still count for
 * kill(-pgid, 0) until reaped, which for orphans happens on init's schedule.
 */
export async function findProcessesWithEnv(
  name: string,
  value: string,
): Promise<{ pid: number; pgid: number }[]> {
  const entry = Buffer.from(`\0${name}=${value}\0`);
  const pids = (await readdir("/proc").catch(() => [])).filter((name) => /^\d+$/.test(name));
  const found = await Promise.all(
    pids.map(async (name) => {
      const pid = Number(name);
      const environ = await readFile(`/proc/${pid}/environ`).catch(() => null);
      // Entries are NUL-terminated; a leading NUL lets the first one match like the others.
      if (environ === null || !Buffer.concat([NUL, environ]).includes(entry)) return null;
      const stat = await readProcFile(pid, "stat");
      const fields = stat === null ? null : parseStatFields(stat);
      if (fields === null || fields.state === "Z" || fields.state === "X") return null;
      return { pid, pgid: fields.pgrp };
    }),
  );
  return found.filter((process) => process !== null);
}

/**
 * The state letter of /proc/<pid>/stat. The command name in parentheses may itself contain
 * spaces and parentheses, so the state is found after the last ")".
 */
export function parseStatState(stat: string): string | null {
  return parseStatFields(stat)?.state ?? null;
}

// After "(comm)": state, ppid, pgrp, ...
function parseStatFields(stat: string): { state: string; pgrp: number } | null {
  const end = stat.lastIndexOf(")");
  if (end === -1) return null;
  const [state, , pgrp] = stat.slice(end + 2).split(" ");
  if (!state || pgrp === undefined) return null;
  return { state, pgrp: Number(pgrp) };
}

async function readProcFile(pid: number, name: string): Promise<string | null> {
  try {
    return await readFile(`/proc/${pid}/${name}`, "utf8");
  } catch {
    return null;
  }
}
