import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface Hotspot {
  function: string;
  where: string;
  self_percent: number;
}

/** The functions with the most self time in a V8 .cpuprofile, and the share by source file. */
export function summarizeProfile(
  file: string,
  top = 15,
): { functions: Hotspot[]; files: Hotspot[] } {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const total = profile.nodes.reduce((n, node) => n + (node.hitCount ?? 0), 0) || 1;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url
      ? `${url.replace(/^.*\/(node_modules|dist)\//, "$1/")}:${lineNumber + 1}`
      : "(native)";
    const key = `${functionName || "(anonymous)"}\u0000${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
    const fileKey = url ? url.replace(/^.*\/(node_modules|dist)\//, "$1/") : functionName;
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + hits);
  }
  const rank = (map: Map<string, number>, split: boolean): Hotspot[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, hits]) => {
        const [fn, where] = split ? key.split("\u0000") : [key, ""];
        return {
          function: fn ?? "",
          where: where ?? "",
          self_percent: Math.round((hits / total) * 1000) / 10,
        };
      });
  return { functions: rank(byFunction, true), files: rank(byFile, false) };
}

/** Share of all samples spent inside (inclusive) each named function, counted once per stack. */
export function inclusiveShares(file: string, names: string[]): Record<string, number> {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const total = profile.nodes.reduce((n, node) => n + (node.hitCount ?? 0), 0) || 1;
  const shares: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
  const walk = (id: number, inside: Set<string>) => {
    const node = byId.get(id);
    if (!node) return;
    const name = node.callFrame.functionName;
    const here = names.includes(name) && !inside.has(name) ? new Set([...inside, name]) : inside;
    for (const n of here) shares[n] = (shares[n] ?? 0) + (node.hitCount ?? 0);
    for (const child of node.children ?? []) walk(child, here);
  };
  const root = profile.nodes[0];
  if (root) walk(root.id, new Set());
  for (const n of names) shares[n] = Math.round(((shares[n] ?? 0) / total) * 1000) / 10;
  return shares;
}
