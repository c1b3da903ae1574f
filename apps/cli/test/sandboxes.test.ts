import { expect, inject, it } from "vitest";
import { runCli } from "./cli";

const { url, dataDir } = inject("server");
// As a person on the server's machine: the URL, and the data directory that holds the admin key.
const env = { SANDBOX_SERVER_URL: url, DATA_DIR: dataDir };

interface SandboxJson {
  id: string;
  status: string;
  labels: Record<string, string>;
}

it("creates, lists, waits for, pauses, resumes and deletes a sandbox", async () => {
  const created = await runCli(["sandboxes", "create", "--label", "team=cli", "--json"], env);
  expect(created.code, created.stderr).toBe(0);
  const sandbox = JSON.parse(created.stdout) as SandboxJson;
  expect(sandbox.labels).toEqual({ team: "cli" });

  const waited = await runCli(
    ["sandboxes", "wait", sandbox.id, "--status", "RUNNING", "--timeout", "60"],
    env,
  );
  expect(waited.code, waited.stderr).toBe(0);
  expect(waited.stdout).toBe(`${sandbox.id} RUNNING\n`);

  const table = await runCli(["sandboxes", "list", "--label", "team=cli"], env);
  expect(table.code).toBe(0);
  const [header, ...rows] = table.stdout.trimEnd().split("\n");
  expect(header).toMatch(/^ID\s+STATUS\s+SPEC\s+CREATED\s+LABELS$/);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatch(new RegExp(`^${sandbox.id}\\s+RUNNING\\s+default\\s+.*team=cli$`));

  const json = await runCli(["sandboxes", "list", "--json", "--status", "RUNNING"], env);
  const listed = JSON.parse(json.stdout) as SandboxJson[];
  expect(listed.map((s) => s.id)).toContain(sandbox.id);

  const get = await runCli(["sandboxes", "get", sandbox.id], env);
  expect(get.stdout).toMatch(/^status: +RUNNING$/m);
  expect(get.stdout).toMatch(
    /^agent server: +http:\/\/(127\.0\.0\.1:\d+|198\.19\.\d+\.\d+:8000)$/m,
  );

  const paused = await runCli(["sandboxes", "pause", sandbox.id, "--json"], env);
  expect((JSON.parse(paused.stdout) as SandboxJson).status).toBe("PAUSED");
  // Waiting for a status it does not reach by itself ends with a timeout error.
  const stuck = await runCli(["sandboxes", "wait", sandbox.id, "--timeout", "0.3"], env);
  expect(stuck.code).not.toBe(0);
  expect(stuck.stderr).toMatch(/^sandbox-server: error: Sandbox \S+ is PAUSED, not RUNNING/);

  const resumed = await runCli(["sandboxes", "resume", sandbox.id], env);
  expect(resumed.stdout).toMatch(/^status: +RUNNING$/m);

  const deleted = await runCli(["sandboxes", "delete", sandbox.id], env);
  expect(deleted.stdout).toBe(`deleted ${sandbox.id}\n`);
  const gone = await runCli(["sandboxes", "get", sandbox.id], env);
  expect(gone.code).toBe(1);
  expect(gone.stdout).toBe("");
  expect(gone.stderr).toMatch(/^sandbox-server: error: [^\n]+ \(SANDBOX_NOT_FOUND, HTTP 404\)\n$/);
});

it("creates a sandbox and waits for it in one command", async () => {
  const created = await runCli(["sandboxes", "create", "--wait", "--json"], env);
  expect(created.code, created.stderr).toBe(0);
  const sandbox = JSON.parse(created.stdout) as SandboxJson;
  expect(sandbox.status).toBe("RUNNING");
  await runCli(["sandboxes", "delete", sandbox.id], env);
});

it("creates a sandbox with an egress policy, shows it, and names a refused entry", async () => {
  const created = await runCli(
    [
      "sandboxes",
      "create",
      "--no-internet",
      "--allow-out",
      "PyPI.org:443",
      "--allow-out",
      "*.github.com",
      "--deny-out",
      "2001:db8::/32",
      "--json",
    ],
    env,
  );
  expect(created.code, created.stderr).toBe(0);
  const sandbox = JSON.parse(created.stdout) as SandboxJson & { network: unknown };
  expect(sandbox.network).toEqual({
    allow_internet: false,
    allow_out: ["pypi.org:443", "*.github.com"],
    deny_out: ["2001:db8::/32"],
  });

  const shown = await runCli(["sandboxes", "network", sandbox.id], env);
  expect(shown.stdout).toBe("no internet; allow pypi.org:443, *.github.com; deny 2001:db8::/32\n");
  const get = await runCli(["sandboxes", "get", sandbox.id], env);
  expect(get.stdout).toMatch(/^network: +no internet; allow pypi\.org:443, \*\.github\.com;/m);

  // This server opens no private address to sandboxes: allowing one is refused, naming it.
  const refused = await runCli(
    ["sandboxes", "network", sandbox.id, "--allow-out", "10.0.0.1"],
    env,
  );
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('"10.0.0.1" is outside this server\'s egress policy');
  expect(refused.stderr).toContain("VALIDATION_FAILED, HTTP 422");

  expect((await runCli(["sandboxes", "delete", sandbox.id], env)).code).toBe(0);
});

it("creates a sandbox with a lifetime policy, shows it, and sets its timeout", async () => {
  const created = await runCli(
    [
      "sandboxes",
      "create",
      "--active-timeout",
      "3600",
      "--on-timeout",
      "delete",
      "--idle-pause-after",
      "300",
      "--delete-paused-after",
      "86400",
      "--json",
    ],
    env,
  );
  expect(created.code, created.stderr).toBe(0);
  const sandbox = JSON.parse(created.stdout) as SandboxJson & { lifetime: unknown };
  expect(sandbox.lifetime).toMatchObject({
    timeout_s: 3600,
    on_timeout: "delete",
    idle_pause_after_s: 300,
    delete_paused_after_s: 86400,
  });
  const shown = await runCli(["sandboxes", "get", sandbox.id], env);
  expect(shown.stdout).toMatch(
    /^lifetime: +timeout 3600 s → delete, idle pause 300 s, delete after 86400 s paused$/m,
  );
  const extended = await runCli(["sandboxes", "timeout", sandbox.id, "7200", "--json"], env);
  expect(extended.code, extended.stderr).toBe(0);
  const { expires_at } = JSON.parse(extended.stdout) as { expires_at: string };
  expect(Date.parse(expires_at) - Date.now()).toBeGreaterThan(7_000_000);
  // Refused before anything is sent: not whole seconds.
  const refused = await runCli(["sandboxes", "timeout", sandbox.id, "1.5"], env);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/expected whole seconds/);
  await runCli(["sandboxes", "delete", sandbox.id], env);
});

it("declares ports at create and prints a signed URL to a port", async () => {
  const created = await runCli(
    ["sandboxes", "create", "--port", "VSCODE=8080", "--auto-resume", "--json"],
    env,
  );
  expect(created.code, created.stderr).toBe(0);
  const sandbox = JSON.parse(created.stdout) as SandboxJson & { auto_resume: boolean };
  expect(sandbox.auto_resume).toBe(true);
  const url = await runCli(["sandboxes", "port", sandbox.id, "3000", "--expires-in", "60"], env);
  expect(url.code, url.stderr).toBe(0);
  expect(url.stdout).toMatch(/^http:\/\/p3000-[0-9a-z]+-[0-9a-z]+\.localhost:\d+\/\n$/);
  const json = await runCli(["sandboxes", "port", sandbox.id, "3000", "--json"], env);
  expect(JSON.parse(json.stdout)).toMatchObject({ port: 3000, expires_at: expect.any(String) });
  for (const port of ["70000", "0"]) {
    const bad = await runCli(["sandboxes", "port", sandbox.id, port], env);
    expect(bad.code, port).not.toBe(0);
    expect(bad.stderr).toContain(`expected a port of the sandbox (1-65535), got "${port}"`);
  }
  const declared = await runCli(["sandboxes", "create", "--port", "WEB=0"], env);
  expect(declared.code).not.toBe(0);
  expect(declared.stderr).toContain('got "0"');
  expect((await runCli(["sandboxes", "delete", sandbox.id], env)).code).toBe(0);
});
