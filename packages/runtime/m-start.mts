import { ProcessRuntime } from "./src/process/process-runtime";
import { mkdtemp, rm } from "node:fs/promises";
const entry = "../../apps/agent-server/dist/agent-server.js";
const N = Number(process.argv[2] ?? 15);
const root1 = await mkdtemp("/tmp/ssnx-m1-"), root2 = await mkdtemp("/tmp/ssnx-m2-");
const own = new ProcessRuntime({ rootDir: root1, agentServerEntry: entry, sandboxing: "bwrap", networking: "own" });
const shared = new ProcessRuntime({ rootDir: root2, agentServerEntry: entry, sandboxing: "bwrap", networking: "shared" });
const times: Record<string, number[]> = { own: [], shared: [] };
async function one(rt: ProcessRuntime, label: string, i: number) {
  const id = `m${label}${i}`;
  const t = performance.now();
  await rt.register({ sandboxId: id, ownerId: "u", specId: "d", sessionApiKey: "k".repeat(24), env: {} });
  const T1 = performance.now(); await rt.start({ sandboxId: id, ownerId: "u", specId: "d", sessionApiKey: "k".repeat(24), env: {} });
  await rt.waitUntilReady(id, 30000); if (process.env.MT) console.error(label, "register", (T1 - t).toFixed(1), "start+ready", (performance.now() - T1).toFixed(1));
  times[label].push(performance.now() - t);
  await rt.delete(id);
}
for (let i = 0; i < 2; i++) { await one(own, "own", 100 + i); await one(shared, "shared", 100 + i); }
times.own = []; times.shared = [];
for (let i = 0; i < N; i++) { await one(own, "own", i); await one(shared, "shared", i); }
const p = (a: number[], q: number) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(1); };
for (const k of ["own", "shared"]) console.log(k, "p50", p(times[k], 0.5), "p90", p(times[k], 0.9), "n", times[k].length);
await own.close(); await shared.close(); await rm(root1, { recursive: true }); await rm(root2, { recursive: true });
