import { spawn } from "node:child_process";
import { expect, inject, it } from "vitest";
import { bin, cleanEnv, runCli } from "./cli";

const { url, dataDir } = inject("server");
const env = { SANDBOX_SERVER_URL: url, DATA_DIR: dataDir };

interface ConversationJson {
  id: string;
  sandbox_id: string;
  title: string | null;
  execution_status: string | null;
  archived: boolean;
}

it("creates a conversation, waits for the agent, sends, reads and follows events", async () => {
  const created = await runCli(
    ["conversations", "create", "--title", "cli", "--message", "echo first-$((6 * 7))", "--wait"],
    env,
  );
  expect(created.code, created.stderr).toBe(0);
  const id = /^id: +(\S+)$/m.exec(created.stdout)?.[1] ?? "";
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  // --wait returned once the agent was done with the first message.
  expect(created.stdout).toMatch(/^agent status: +(finished|idle)$/m);

  const list = await runCli(["conversations", "list", "--title", "cli"], env);
  expect(list.stdout.split("\n")[0]).toMatch(/^ID\s+SANDBOX\s+STATUS\s+AGENT\s+CREATED\s+TITLE$/);
  expect(list.stdout).toMatch(new RegExp(`^${id}\\s+sb_\\S+\\s+RUNNING\\s+\\S+\\s+.*cli$`, "m"));
  const listJson = JSON.parse((await runCli(["conversations", "list", "--json"], env)).stdout);
  const conversation = (listJson as ConversationJson[]).find((c) => c.id === id);
  expect(conversation?.title).toBe("cli");

  // The stored events: the agent ran the first message and answered it.
  await expect
    .poll(async () => (await runCli(["conversations", "events", id], env)).stdout, {
      timeout: 30_000,
    })
    .toMatch(/agent +MessageEvent +first-42$/m);

  // Follow live, then send: the reply shows up in the running follower.
  const follower = spawn(process.execPath, [bin, "conversations", "events", id, "--follow"], {
    env: cleanEnv({ ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let followed = "";
  follower.stdout.on("data", (chunk) => {
    followed += chunk;
  });
  const exited = new Promise<number | null>((resolve) => follower.once("exit", resolve));
  await expect.poll(() => followed, { timeout: 30_000 }).toContain("first-42");

  const sent = await runCli(["conversations", "send", id, "echo second-$((7 * 6))"], env);
  expect(sent.code, sent.stderr).toBe(0);
  expect(sent.stdout).toBe("sent (sandbox RUNNING)\n");
  await expect
    .poll(() => followed, { timeout: 30_000 })
    .toMatch(/agent +MessageEvent +second-42$/m);
  follower.kill("SIGINT");
  expect(await exited).toBe(0);

  const json = await runCli(
    ["conversations", "events", id, "--json", "--kind", "MessageEvent"],
    env,
  );
  const events = json.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { kind: string; source: string });
  expect(events.every((event) => event.kind === "MessageEvent")).toBe(true);
  expect(events.filter((event) => event.source === "agent")).toHaveLength(2);

  const sandboxId = conversation?.sandbox_id ?? "";
  expect((await runCli(["sandboxes", "delete", sandboxId], env)).code).toBe(0);
  const archived = await runCli(["conversations", "list", "--archived", "--json"], env);
  expect((JSON.parse(archived.stdout) as ConversationJson[]).map((c) => c.id)).toContain(id);
  const refused = await runCli(["conversations", "send", id, "echo too late"], env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(
    /^sandbox-server: error: [^\n]+ \(CONVERSATION_ARCHIVED, HTTP 410\)\n$/,
  );
});
