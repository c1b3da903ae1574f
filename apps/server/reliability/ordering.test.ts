import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FaultFigures } from "./lib/acknowledged";
import { isErrorBody } from "./lib/api";
import { listAgentServer, userMessageTexts } from "./lib/pages";
import { type ServerProcess, startServerProcess } from "./lib/server-process";

/**
 * "A message is delivered once or not at all": send-message racing pause/resume cycles on the
 * process runtime (SIGSTOP). Every message answered 200 is in the agent server's events exactly
 * once; every message answered 409 or 503 is not there, also after the final resume.
 */
let server: ServerProcess;
let key: string;

beforeAll(async () => {
  // A short forward time-out: a message stuck in a frozen agent server would be answered 503
  // within the test's pauses (see the cycler), and then show up after the resume.
  server = await startServerProcess({
    env: { SANDBOX_RUNTIME: "process", AGENT_REQUEST_TIMEOUT_MS: "1000" },
  });
  key = (await server.api("POST", "/api/v1/users", { body: { name: "ordering" } })).body.api_key;
});

afterAll(async () => {
  await server?.dispose();
});

const ACCEPTED = 300;
const SENDERS = 4;
/** Messages answered 200 between two pauses. */
const ACCEPTED_PER_CYCLE = 15;
const message = (text: string) => ({ role: "user", content: [{ type: "text", text }], run: false });

/** A one-shot signal that can be awaited and fired. */
function signal() {
  let fire = () => {};
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}

describe("send-message racing pause and resume", () => {
  it(`${ACCEPTED} accepted sends across pause/resume cycles: 200 means delivered once, 409/503 never`, {
    timeout: 300_000,
  }, async ({ task }) => {
    const conv = await server.api("POST", "/api/v1/app-conversations", { key, body: {} });
    expect(conv.status, conv.text).toBe(201);
    const { id, sandbox_id: sandboxId } = conv.body;
    const answers = new Map<string, number>();
    let next = 0;
    let accepted = 0;
    // Interleaved by events: the cycler pauses once some more messages got through, and resumes
    // once every sender has been refused (409, or 503 after the forward time-out) and waits for
    // the resume, as a client that retries later would.
    let moreAccepted = signal();
    let resumed = signal();
    let waiting = 0;
    let allWaiting = signal();
    const sender = async () => {
      while (accepted < ACCEPTED) {
        const text = `race-${next++}`;
        const res = await server.api("POST", `/api/v1/app-conversations/${id}/send-message`, {
          key,
          body: message(text),
        });
        answers.set(text, res.status);
        if (res.status === 200) {
          if (++accepted % ACCEPTED_PER_CYCLE === 0 || accepted >= ACCEPTED) moreAccepted.fire();
          continue;
        }
        expect([409, 503], res.text).toContain(res.status);
        expect(isErrorBody(res)).toBe(true);
        if (++waiting === SENDERS) allWaiting.fire();
        await resumed.fired;
        waiting--;
      }
      // Done: counts as waiting, so the cycler never waits for it.
      if (++waiting === SENDERS) allWaiting.fire();
    };
    let cycles = 0;
    const cycler = async () => {
      while (accepted < ACCEPTED) {
        await moreAccepted.fired;
        moreAccepted = signal();
        const paused = await server.api("POST", `/api/v1/sandboxes/${sandboxId}/pause`, { key });
        expect(paused.status, paused.text).toBe(200);
        await allWaiting.fired;
        allWaiting = signal();
        const wasResumed = resumed;
        resumed = signal();
        const back = await server.api("POST", `/api/v1/sandboxes/${sandboxId}/resume`, { key });
        expect(back.body.status, back.text).toBe("RUNNING");
        wasResumed.fire();
        cycles++;
      }
      resumed.fire();
    };
    await Promise.all([cycler(), ...Array.from({ length: SENDERS }, sender)]);

    // Running again; a last message, once it is in the events, comes after anything that could
    // still have been waiting in a frozen agent server's socket.
    const last = await server.api("POST", `/api/v1/app-conversations/${id}/send-message`, {
      key,
      body: message("race-sentinel"),
    });
    expect(last.status, last.text).toBe(200);
    const read = (await server.api("GET", `/api/v1/app-conversations/${id}`, { key })).body;
    const events = async () =>
      userMessageTexts(
        await listAgentServer(`${read.conversation_url}/events/search`, read.session_api_key),
      );
    await expect.poll(async () => (await events()).includes("race-sentinel")).toBe(true);
    const delivered = await events();

    const count = (text: string) => delivered.filter((t) => t === text).length;
    const ok = [...answers].filter(([, status]) => status === 200).map(([text]) => text);
    const refused = [...answers].filter(([, status]) => status !== 200).map(([text]) => text);
    const figures: FaultFigures = {
      scenario: `send-message racing ${cycles} pause/resume cycles (process)`,
      acknowledged: ok.length,
      lost: ok.filter((text) => count(text) === 0).length,
      duplicated: ok.filter((text) => count(text) > 1).length,
      unanswered: next - answers.size,
      refusedYetDone: refused.filter((text) => count(text) > 0).length,
    };
    task.meta.faultFigures = [figures];

    expect(figures).toMatchObject({ lost: 0, duplicated: 0, unanswered: 0, refusedYetDone: 0 });
    // Nothing else arrived either: exactly the accepted messages and the last one.
    expect(delivered.length).toBe(ok.length + 1);
    // The race was run: messages got through and met pauses, over many cycles.
    expect(ok.length).toBeGreaterThanOrEqual(ACCEPTED);
    expect(refused.length).toBeGreaterThanOrEqual(cycles);
    expect(cycles).toBeGreaterThanOrEqual(10);
  });
});
