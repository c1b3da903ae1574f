import fs from "node:fs";
import path from "node:path";
import type { BashCommand, BashEventPage, BashOutput } from "@sandbox-server/agent-contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  collectPages,
  isProcessAlive,
  startTestServer,
  type TestServer,
  waitFor,
} from "../../test/harness";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.dispose());

const execute = (body: unknown) =>
  server.api<BashOutput>("POST", "/api/bash/execute_bash_command", body);

describe("POST /api/bash/execute_bash_command", () => {
  it("runs in the workspace and returns output and exit code", async () => {
    const { status, body } = await execute({ command: "pwd; echo oops >&2; exit 3" });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      kind: "BashOutput",
      exit_code: 3,
      stdout: `${server.workspaceDir}\n`,
      stderr: "oops\n",
    });
  });

  it("runs in a given cwd; 400 when it does not exist", async () => {
    fs.mkdirSync(path.join(server.workspaceDir, "sub"));
    expect((await execute({ command: "pwd", cwd: "sub" })).body.stdout).toBe(
      `${path.join(server.workspaceDir, "sub")}\n`,
    );
    expect((await execute({ command: "pwd", cwd: "/does/not/exist" })).status).toBe(400);
  });

  it("runs commands with the configured environment only", async () => {
    const env = await startTestServer({
      commandEnv: { PATH: process.env.PATH ?? "", VISIBLE: "yes" },
    });
    try {
      const { body } = await env.api<BashOutput>("POST", "/api/bash/execute_bash_command", {
        command: "env",
      });
      expect(body.stdout).toContain("VISIBLE=yes");
      expect(body.stdout).not.toContain("HOME=");
    } finally {
      await env.dispose();
    }
  });

  it("on timeout kills the whole process group and answers exit_code -1", async () => {
    const pidFile = path.join(server.workspaceDir, "child.pid");
    const { body } = await execute({
      command: `sleep 60 & echo $! > ${pidFile}; bash -c 'sleep 60' & wait`,
      timeout: 0.5,
    });
    expect(body.exit_code).toBe(-1);
    const childPid = Number(fs.readFileSync(pidFile, "utf8"));
    await waitFor(() => (isProcessAlive(childPid) ? undefined : true));
    expect(isProcessAlive(childPid)).toBe(false);
  });

  it("answers 422 for a missing command or a bad timeout", async () => {
    expect((await execute({})).status).toBe(422);
    expect((await execute({ command: "true", timeout: -1 })).status).toBe(422);
  });
});

describe("start_bash_command and bash_events", () => {
  it("returns the command at once and publishes its output as events", async () => {
    const started = await server.api<BashCommand>("POST", "/api/bash/start_bash_command", {
      command: "echo one; sleep 0.3; echo two",
    });
    expect(started.body).toMatchObject({
      kind: "BashCommand",
      command: "echo one; sleep 0.3; echo two",
      timeout: 300,
    });
    const search = `/api/bash/bash_events/search?command_id__eq=${started.body.id}`;
    const outputs = await waitFor(async () => {
      const page = await server.api<BashEventPage>("GET", `${search}&kind__eq=BashOutput`);
      const items = page.body.items as BashOutput[];
      return items.some((item) => item.exit_code !== null) ? items : undefined;
    });
    expect(outputs.map((item) => item.order)).toEqual(outputs.map((_, index) => index));
    expect(outputs.map((item) => item.stdout ?? "").join("")).toBe("one\ntwo\n");
    expect(outputs.at(-1)?.exit_code).toBe(0);

    const all = await server.api<BashEventPage>("GET", search);
    expect(all.body.items[0]).toEqual(started.body);
  });

  it("pages through events in both orders", async () => {
    for (let i = 0; i < 3; i++) await execute({ command: `echo ${i}` });
    const collect = async (order: string) =>
      (await collectPages(server, `/api/bash/bash_events/search?limit=2&sort_order=${order}`)).ids;
    const ascending = await collect("TIMESTAMP");
    expect(new Set(ascending).size).toBe(ascending.length);
    expect(await collect("TIMESTAMP_DESC")).toEqual([...ascending].reverse());
    expect((await server.api("GET", "/api/bash/bash_events/search?kind__eq=Nope")).status).toBe(
      422,
    );
  });
});
