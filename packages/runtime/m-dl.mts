import { ProcessRuntime } from "./src/process/process-runtime";
import { LanHost } from "./src/process/test/lan-host";
import { runBash } from "./src/process/test/support";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
const exec = promisify(execFile);
const lan = new LanHost();
await lan.start();
// A 100 MiB server on the LAN host, beside the test's own.
const big = spawn("ip", ["netns", "exec", lan.name, process.execPath, "-e", `const b = Buffer.alloc(1024*1024, 97); require("http").createServer((q, r) => { r.writeHead(200, {"content-length": 100*1024*1024}); let n = 0; const w = () => { while (n < 100) { n++; if (!r.write(b)) return r.once("drain", w); } r.end(); }; w(); }).listen(8081, "${lan.address}", () => console.log("up"))`], { stdio: ["ignore", "pipe", "inherit"] });
await new Promise((r) => big.stdout!.once("data", r));
const root = await mkdtemp("/tmp/ssnx-dl-");
const rt = new ProcessRuntime({ rootDir: root, agentServerEntry: "../../apps/agent-server/dist/agent-server.js", sandboxing: "bwrap", networking: "own", egress: { operator: { allow: [{ kind: "cidr", cidr: `${lan.address}/32`, port: null }] } } });
const s = await rt.start({ sandboxId: "dl1", ownerId: "u", specId: "d", sessionApiKey: "k".repeat(24), env: {} });
await rt.waitUntilReady("dl1", 30000);
const script = `const t=performance.now(); fetch("http://${lan.address}:8081/").then(async r=>{let n=0; for await (const c of r.body) n+=c.length; console.log(n, ((n/1048576)/((performance.now()-t)/1000)).toFixed(1))})`;
await writeFile(`${root}/dl1/workspace/dl.cjs`, script);
const host: number[] = [], inside: number[] = [];
for (let i = 0; i < 5; i++) {
  const h = (await exec(process.execPath, ["-e", script])).stdout.trim().split(" ");
  host.push(Number(h[1]));
  const b = (await runBash(s.agentServerUrl!, "k".repeat(24), "node /workspace/dl.cjs")).stdout.trim().split(" ");
  inside.push(Number(b[1]));
  console.log("host", h.join(" "), "inside", b.join(" "));
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[2];
console.log("MiB/s median host", med(host), "inside", med(inside), "ratio", (med(inside) / med(host)).toFixed(2));
await rt.delete("dl1"); await rt.close(); await rm(root, { recursive: true });
big.kill("SIGKILL"); await lan.stop();
