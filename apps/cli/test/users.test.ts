import { expect, inject, it } from "vitest";
import { runCli } from "./cli";

const { url, dataDir } = inject("server");
const admin = { SANDBOX_SERVER_URL: url, DATA_DIR: dataDir };

it("creates a user whose key then works, and manages that user's own keys", async () => {
  const created = await runCli(["users", "create", "carol"], admin);
  expect(created.code, created.stderr).toBe(0);
  expect(created.stdout).toMatch(/^name: +carol$/m);
  expect(created.stdout).toMatch(/^admin: +no$/m);
  const apiKey = /^(ssk_\S+)$/m.exec(created.stdout)?.[1] ?? "";
  expect(apiKey).not.toBe("");

  const carol = { SANDBOX_SERVER_URL: url, SANDBOX_API_KEY: apiKey };
  const me = await runCli(["users", "me", "--json"], carol);
  expect(JSON.parse(me.stdout)).toMatchObject({ name: "carol", is_admin: false });

  const second = await runCli(["api-keys", "create", "laptop", "--json"], carol);
  expect(second.code, second.stderr).toBe(0);
  const key = JSON.parse(second.stdout) as { id: string; api_key: string };
  expect(key.api_key).toMatch(/^ssk_/);

  const table = await runCli(["api-keys", "list"], carol);
  expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+CREATED\s+CURRENT$/);
  expect(table.stdout).toMatch(/\s+laptop\s+ssk_/);
  expect(table.stdout).not.toContain(key.api_key);
  const listed = JSON.parse((await runCli(["api-keys", "list", "--json"], carol)).stdout);
  expect(listed).toHaveLength(2);

  expect((await runCli(["api-keys", "revoke", key.id], carol)).stdout).toBe(`revoked ${key.id}\n`);
  const revoked = await runCli(["users", "me"], { ...carol, SANDBOX_API_KEY: key.api_key });
  expect(revoked.code).toBe(1);

  // Only admins create users.
  const refused = await runCli(["users", "create", "mallory"], carol);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/\(FORBIDDEN, HTTP 403\)\n$/);
  const adminUser = await runCli(["users", "create", "dave", "--admin", "--json"], admin);
  expect(JSON.parse(adminUser.stdout)).toMatchObject({ name: "dave", is_admin: true });
});
