import type { Api, ApiResponse } from "./api";
import { listAll } from "./pages";

export type OperationKind =
  | "create sandbox"
  | "create conversation"
  | "pause"
  | "resume"
  | "delete";

/** What an acknowledged operation promised, and the status that acknowledges it. */
const ACK_STATUS: Record<OperationKind, number> = {
  "create sandbox": 201,
  "create conversation": 201,
  pause: 200,
  resume: 200,
  delete: 200,
};

export interface Outcome {
  kind: OperationKind;
  /** The sandbox a pause/resume/delete was about. */
  target: string | null;
  /** null: no answer (the control plane died, or the client gave up). */
  response: ApiResponse | null;
}

/** Figures of one fault scenario, for the suite's summary. */
export interface FaultFigures {
  scenario: string;
  /** Operations answered with their success status before the fault. */
  acknowledged: number;
  /** Acknowledged operations whose effect is not there after the restart. */
  lost: number;
  /** Resources that exist more often than they were asked for. */
  duplicated: number;
  /** Operations that got no answer (their outcome may go either way). */
  unanswered: number;
  /** Operations refused (409/503) whose effect happened anyway; only where that can be told. */
  refusedYetDone?: number;
}

/** Sends one operation; its outcome is filled in when (and if) it is answered. */
export function track(
  kind: OperationKind,
  target: string | null,
  send: () => Promise<ApiResponse>,
) {
  const outcome: Outcome = { kind, target, response: null };
  const done = send().then(
    (response) => {
      outcome.response = response;
    },
    () => undefined,
  );
  return { outcome, done };
}

export function isAcknowledged(outcome: Outcome): boolean {
  return outcome.response?.status === ACK_STATUS[outcome.kind];
}

/**
 * After the restart (records settled): every acknowledged operation's effect is there. Creates
 * give a RUNNING sandbox, conversations are readable, live and held by their agent server, pauses
 * stay PAUSED, resumes RUNNING, deletes gone. Returns the problems (empty when none is lost).
 */
export async function findLost(api: Api, key: string, outcomes: Outcome[]): Promise<string[]> {
  const lost: string[] = [];
  const sandbox = async (id: string) => api("GET", `/api/v1/sandboxes/${id}`, { key });
  for (const outcome of outcomes.filter(isAcknowledged)) {
    const body = outcome.response?.body;
    const describe = (res: ApiResponse) =>
      `${res.status} ${res.body?.status ?? ""} ${res.body?.status_detail ?? res.body?.code ?? ""}`;
    if (outcome.kind === "create sandbox") {
      const read = await sandbox(body.id);
      if (read.body?.status !== "RUNNING") lost.push(`created ${body.id}: ${describe(read)}`);
    } else if (outcome.kind === "create conversation") {
      const read = await api("GET", `/api/v1/app-conversations/${body.id}`, { key });
      const box = await sandbox(body.sandbox_id);
      if (read.status !== 200 || read.body.archived || box.body?.status !== "RUNNING") {
        lost.push(`conversation ${body.id}: ${read.status}, sandbox ${describe(box)}`);
        continue;
      }
      const onAgent = await fetch(read.body.conversation_url, {
        headers: { "x-session-api-key": read.body.session_api_key },
      }).catch(() => null);
      if (onAgent?.status !== 200) {
        lost.push(`conversation ${body.id}: agent server answers ${onAgent?.status ?? "nothing"}`);
      }
    } else {
      const id = outcome.target ?? "";
      const read = await sandbox(id);
      const expected = { pause: "PAUSED", resume: "RUNNING", delete: null }[outcome.kind];
      const ok = expected === null ? read.status === 404 : read.body?.status === expected;
      if (!ok) lost.push(`${outcome.kind} of ${id}: ${describe(read)}`);
    }
  }
  return lost;
}

/**
 * Sandboxes and conversations beyond what was asked for: at most one per create request (answered
 * or not) may exist, and a conversation's sandbox holds that one conversation.
 */
export async function countDuplicates(
  api: Api,
  key: string,
  before: { sandboxes: Set<string>; conversations: Set<string> },
  outcomes: Outcome[],
): Promise<number> {
  const sandboxes = (await listAll(api, "/api/v1/sandboxes/search", key)).filter(
    (s) => !before.sandboxes.has(s.id),
  );
  const conversations = (await listAll(api, "/api/v1/app-conversations", key)).filter(
    (c) => !before.conversations.has(c.id),
  );
  const asked = (kind: OperationKind) => outcomes.filter((o) => o.kind === kind).length;
  const extraSandboxes = Math.max(
    0,
    sandboxes.length - asked("create sandbox") - asked("create conversation"),
  );
  const extraConversations = Math.max(0, conversations.length - asked("create conversation"));
  return extraSandboxes + extraConversations;
}

export function figuresOf(
  scenario: string,
  outcomes: Outcome[],
  lost: string[],
  duplicated: number,
): FaultFigures {
  return {
    scenario,
    acknowledged: outcomes.filter(isAcknowledged).length,
    lost: lost.length,
    duplicated,
    unanswered: outcomes.filter((o) => o.response === null).length,
  };
}
