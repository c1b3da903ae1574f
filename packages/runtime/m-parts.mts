import { detectNetns } from "./src/process/network/detect-netns";
import { prepareNetns, attachPasta, removeNetns } from "./src/process/network/sandbox-network";
import { compileEgressRuleset } from "./src/process/network/egress-ruleset";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { findSandboxProcesses, killSandboxProcesses } from "./src/process/sandbox-processes";
const exec = promisify(execFile);
const t = detectNetns(); if (!t.usable) throw new Error(t.reason);
const rs = compileEgressRuleset({ policy: { allowInternet: true, allowOut: [], denyOut: [] }, operator: { allow: [] } });
const r: Record<string, number[]> = { spawnTrue: [], compile: [], prepare: [], pasta: [], remove: [] };
for (let i = 0; i < 10; i++) {
  const name = `ssnx-m${i}`;
  let s = performance.now(); await exec("/bin/true"); r.spawnTrue.push(performance.now() - s);
  s = performance.now(); compileEgressRuleset({ policy: { allowInternet: true, allowOut: [], denyOut: [] }, operator: { allow: [] } }); r.compile.push(performance.now() - s);
  s = performance.now(); await prepareNetns(t, name, rs); r.prepare.push(performance.now() - s);
  s = performance.now(); await attachPasta({ tools: t, name, env: { SANDBOX_DIR: `/tmp/${name}` }, resolverPort: 5353, forwards: [] }); r.pasta.push(performance.now() - s);
  await killSandboxProcesses(`/tmp/${name}`);
  s = performance.now(); await removeNetns(t, name); r.remove.push(performance.now() - s);
}
const p = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)].toFixed(1);
for (const [k, v] of Object.entries(r)) console.log(k, "p50", p(v));
