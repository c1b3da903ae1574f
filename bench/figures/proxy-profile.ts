import { readdirSync } from "node:fs";
import path from "node:path";
import { ADMIN_KEY, profilesDir, removeDataDir, startControlPlane } from "../lib/control-plane";
import { inclusiveShares, summarizeProfile } from "../lib/profile-summary";
import { deleteAll } from "../lib/sandboxes";
import { settleEvents } from "../lib/settle";
import { runWrk } from "../lib/wrk";

/** Functions whose inclusive share of the control plane's CPU the report names. */
const PROFILED = [
  "recordEvent",
  "queueDeliveries",
  "sendMessage",
  "createContextInner",
  "findUserByApiKey",
  "jsonParser",
];

/** `--profile`: send-message at c=16 against a control plane started with --cpu-prof. */
export async function profileProxy(body: string, seconds: number) {
  const cp = await startControlPlane({ runtime: "process", cpuProfile: true });
  try {
    const created = await cp.api("POST", "/api/v1/app-conversations", {});
    if (created.status !== 201) throw new Error(`create: ${created.status}`);
    const conv = created.body;
    await runWrk(
      {
        url: `${cp.url}/api/v1/app-conversations/${conv.id}/send-message`,
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body,
      },
      16,
      seconds,
    );
    await settleEvents(cp.api, conv);
    await deleteAll(cp);
  } finally {
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
  const file = readdirSync(profilesDir)
    .filter((f) => f.includes(`.${cp.pid}.`) && f.endsWith(".cpuprofile"))
    .map((f) => path.join(profilesDir, f))[0];
  if (!file) return { error: "no profile written" };
  return {
    file: path.relative(process.cwd(), file),
    inclusive_percent: inclusiveShares(file, PROFILED),
    ...summarizeProfile(file, 12),
  };
}
