import { expect, it } from "vitest";
import { runCli } from "./cli";

const leafCommands = [
  ["start"],
  ["sandboxes", "list"],
  ["sandboxes", "create"],
  ["sandboxes", "get"],
  ["sandboxes", "pause"],
  ["sandboxes", "resume"],
  ["sandboxes", "delete"],
  ["sandboxes", "wait"],
  ["conversations", "create"],
  ["conversations", "list"],
  ["conversations", "get"],
  ["conversations", "send"],
  ["conversations", "events"],
  ["users", "create"],
  ["users", "me"],
  ["api-keys", "create"],
  ["api-keys", "list"],
  ["api-keys", "revoke"],
];

it("lists the nouns and how to reach the server in --help", async () => {
  const help = await runCli(["--help"], {});
  expect(help.code).toBe(0);
  for (const noun of ["start", "sandboxes", "conversations", "users", "api-keys"]) {
    expect(help.stdout).toMatch(new RegExp(`^  ${noun}\\b`, "m"));
  }
  expect(help.stdout).toContain("SANDBOX_SERVER_URL");
  expect(help.stdout).toContain("SANDBOX_API_KEY");
  const sandboxes = await runCli(["sandboxes", "--help"], {});
  for (const verb of ["list", "create", "get", "pause", "resume", "delete", "wait"]) {
    expect(sandboxes.stdout).toMatch(new RegExp(`^  ${verb}\\b`, "m"));
  }
});

it("has --help on every command, without needing a server", async () => {
  for (const command of leafCommands) {
    const result = await runCli([...command, "--help"], {
      SANDBOX_SERVER_URL: "http://127.0.0.1:1",
    });
    expect(result.code, command.join(" ")).toBe(0);
    expect(result.stdout).toContain(`Usage: sandbox-server ${command.join(" ")}`);
  }
  const wait = await runCli(["sandboxes", "wait", "--help"], {});
  expect(wait.stdout).toContain("--status <status...>");
  expect(wait.stdout).toContain("--timeout <seconds>");
  const events = await runCli(["conversations", "events", "--help"], {});
  expect(events.stdout).toContain("--follow");
  expect(events.stdout).toContain("--json");
});

it("rejects unknown commands and options with one line and a non-zero exit", async () => {
  const unknown = await runCli(["sandboxes", "explode"], {});
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toContain("unknown command 'explode'");
  const option = await runCli(["sandboxes", "list", "--bogus"], {});
  expect(option.code).not.toBe(0);
  expect(option.stderr.trim().split("\n")).toHaveLength(1);
  const choice = await runCli(["sandboxes", "list", "--status", "SLEEPING"], {});
  expect(choice.code).not.toBe(0);
  expect(choice.stderr).toContain("RUNNING");
});
