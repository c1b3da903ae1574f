import fs from "node:fs";
import path from "node:path";
import {
  AgentEvent,
  type ConversationInfo,
  type MessageEvent,
  type ObservationEvent,
} from "@sandbox-server/agent-contracts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  isProcessAlive,
  listEvents,
  sendText,
  startWithConversation,
  type TestServer,
  waitFor,
  waitForStatus,
} from "../../test/harness";

let server: TestServer;
let id: string;
beforeEach(async () => {
  ({ server, id } = await startWithConversation());
});
afterEach(() => server.dispose());

const send = (text: string, run?: boolean) => sendText(server, id, text, run);
const events = () => listEvents(server, id);
const agentReplies = async () =>
  (await events())
    .filter(
      (event): event is MessageEvent => event.kind === "MessageEvent" && event.source === "agent",
    )
    .map(
      (event) => event.llm_message.content[0]?.type === "text" && event.llm_message.content[0].text,
    );
const statuses = (items: AgentEvent[]) =>
  items.flatMap((event) => (event.kind === "ConversationStateUpdateEvent" ? [event.value] : []));

describe("shell agent", () => {
  it("runs the message as a command: action, observation, agent message, then finished", async () => {
    await send("echo out; echo err >&2; exit 4", true);
    await waitForStatus(server, id, "finished");
    const items = await events();
    expect(items.map((event) => event.kind)).toEqual([
      "MessageEvent",
      "ConversationStateUpdateEvent",
      "ActionEvent",
      "ObservationEvent",
      "MessageEvent",
      "ConversationStateUpdateEvent",
    ]);
    expect(statuses(items)).toEqual(["running", "finished"]);
    expect(AgentEvent.array().safeParse(items).error).toBeUndefined();
    const [action, observation] = [items[2], items[3] as ObservationEvent];
    expect(action).toMatchObject({
      tool_name: "terminal",
      action: { command: "echo out; echo err >&2; exit 4" },
    });
    expect(observation).toMatchObject({
      action_id: action?.id,
      observation: { exit_code: 4, is_error: true, stdout: "out\n", stderr: "err\n" },
    });
    expect(await agentReplies()).toEqual(["out\nerr\n[Exit code: 4]"]);
  });

  it("runs in the conversation's working directory", async () => {
    const dir = path.join(server.workspaceDir, "project");
    const other = (
      await server.api<ConversationInfo>("POST", "/api/conversations", {
        agent: { kind: "shell" },
        workspace: { working_dir: dir },
      })
    ).body.id;
    await server.api("POST", `/api/conversations/${other}/events`, {
      content: [{ type: "text", text: "touch made-here" }],
      run: true,
    });
    await waitForStatus(server, other, "finished");
    expect(fs.existsSync(path.join(dir, "made-here"))).toBe(true);
  });

  it("waits for run; POST /run handles every pending message in order", async () => {
    await send("echo first");
    await send("echo second");
    expect(await agentReplies()).toEqual([]);
    await server.api("POST", `/api/conversations/${id}/run`);
    await waitForStatus(server, id, "finished");
    expect(await agentReplies()).toEqual(["first", "second"]);
    await server.api("POST", `/api/conversations/${id}/run`);
    await waitForStatus(server, id, "finished");
    expect(await agentReplies()).toEqual(["first", "second"]);
  });

  it("goes back to idle on a new message after finishing", async () => {
    await send("true", true);
    await waitForStatus(server, id, "finished");
    await send("echo later");
    expect(statuses(await events())).toEqual(["running", "finished", "idle"]);
  });

  it("picks up a message sent while it runs", async () => {
    await send("sleep 0.3; echo slow", true);
    await send("echo quick", true);
    await waitFor(async () => ((await agentReplies()).length === 2 ? true : undefined));
    await waitForStatus(server, id, "finished");
    expect(await agentReplies()).toEqual(["slow", "quick"]);
    expect(statuses(await events())).toEqual(["running", "finished"]);
  });

  it("pause kills the running command; run continues with the next message", async () => {
    const pidFile = path.join(server.workspaceDir, "pid");
    await send(`sleep 60 & echo $! > ${pidFile}; wait`, true);
    await send("echo next");
    const pid = await waitFor(() =>
      fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, "utf8")) || undefined : undefined,
    );
    await server.api("POST", `/api/conversations/${id}/pause`);
    await waitForStatus(server, id, "paused");
    await waitFor(() => (isProcessAlive(pid) ? undefined : true));
    await waitFor(async () => ((await agentReplies()).length === 1 ? true : undefined));
    expect((await agentReplies())[0]).toContain("[Command interrupted.]");

    await server.api("POST", `/api/conversations/${id}/run`);
    await waitForStatus(server, id, "finished");
    expect((await agentReplies())[1]).toBe("next");
    expect(statuses(await events())).toEqual(["running", "paused", "running", "finished"]);
  });
});
