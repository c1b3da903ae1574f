import {
  type ControlPlane,
  type Json,
  removeDataDir,
  startControlPlane,
} from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { type Receiver, startReceiver } from "../lib/receiver";
import { deleteAll } from "../lib/sandboxes";
import { settleEvents } from "../lib/settle";
import { type Summary, since, sleep, summarize } from "../lib/stats";

const BACKLOG = 1000;
/** The first user's deliveries spread over this many conversations (streams deliver in order). */
const STREAMS = 20;
const SLOW_MS = 200;
const SAMPLES = 20;
/** One of the second user's messages every PACE_MS. */
const PACE_MS = 100;
const DELIVERY_TIMEOUT_MS = 120_000;

type As = (
  method: string,
  route: string,
  body?: unknown,
) => Promise<{ status: number; body: Json }>;

/**
 * Figure 6: the second user's webhook delivery time (send-message → the delivery's arrival at a
 * receiver that answers at once), first with no other traffic, then while a first user has a
 * backlog of BACKLOG deliveries to a receiver that answers after SLOW_MS (spread over STREAMS
 * conversations so the backlog can take every slot the worker would give it). A fair worker keeps
 * the second user's time near the first; a first-come-first-served one makes it wait for the
 * backlog to drain.
 */
export async function webhookFairness(ctx: BenchContext): Promise<FigureResult> {
  const cp = await startControlPlane({
    runtime: "process",
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", ALLOW_UNISOLATED_MULTI_USER: "true" },
  });
  const slow = await startReceiver(SLOW_MS);
  const fast = await startReceiver(0);
  const users: As[] = [];
  try {
    const asA = as(cp, await createUserKey(cp, "bench-backlog"));
    const asB = as(cp, await createUserKey(cp, "bench-measured"));
    users.push(asA, asB);
    const convsA = [await create(asA, "/api/v1/app-conversations", {})];
    for (let i = 1; i < STREAMS; i++) {
      convsA.push(
        await create(asA, "/api/v1/app-conversations", { sandbox_id: convsA[0].sandbox_id }),
      );
    }
    const convB = await create(asB, "/api/v1/app-conversations", {});
    const hookA = await create(asA, "/api/v1/webhooks", {
      url: slow.url,
      events: ["MessageEvent"],
    });
    await create(asB, "/api/v1/webhooks", { url: fast.url, events: ["MessageEvent"] });

    const quiet = await measureB(asB, convB, fast, "quiet");
    ctx.log(`webhook fairness: no backlog p50 ${ms(quiet.summary.median)}`);

    const queueStarted = performance.now();
    await sendBacklog(asA, convsA);
    await Promise.all(convsA.map((conv) => settleEvents(asA, conv)));
    const queuedMs = since(queueStarted);
    const backlogAtStart = BACKLOG - slow.received();
    const busy = await measureB(asB, convB, fast, "backlog");
    const backlogAtEnd = BACKLOG - slow.received();
    ctx.log(
      `webhook fairness: with a backlog of ${backlogAtStart} → ${backlogAtEnd}, p50 ${ms(busy.summary.median)}`,
    );
    // Dropping the webhook drops its pending rows: the worker stops calling the slow receiver.
    await asA("DELETE", `/api/v1/webhooks/${hookA.id}`);

    const data = {
      backlog_deliveries: BACKLOG,
      backlog_streams: STREAMS,
      slow_receiver_ms: SLOW_MS,
      samples: SAMPLES,
      backlog_queued_ms: Math.round(queuedMs),
      backlog_left_when_measuring: { start: backlogAtStart, end: backlogAtEnd },
      second_user_delivery_ms: { without_backlog: quiet.summary, with_backlog: busy.summary },
      timeouts: { without_backlog: quiet.timeouts, with_backlog: busy.timeouts },
    };
    const row = (measure: string, value: string): Row => ({
      figure: "Webhook fairness",
      runtime: "process",
      measure,
      value,
    });
    return {
      key: "webhook_fairness",
      data,
      notes: [
        `**Webhook fairness**: the second user sends ${SAMPLES} messages, one every ${PACE_MS} ms, and ` +
          "each is timed from send-message to its delivery's arrival at a receiver that answers at " +
          `once; the first user's ${BACKLOG} messages over ${STREAMS} conversations are queued just ` +
          `before, to a receiver that answers after ${SLOW_MS} ms.`,
      ],
      rows: [
        row(
          `second user's delivery p50 / max (n=${SAMPLES}, one every ${PACE_MS} ms), no other traffic`,
          describe(quiet),
        ),
        row(
          `… while a first user has ${BACKLOG} deliveries queued to a ${SLOW_MS} ms endpoint`,
          `${describe(busy)} (backlog ${backlogAtStart} → ${backlogAtEnd} meanwhile)`,
        ),
      ],
    };
  } finally {
    for (const user of users) await deleteAllOf(user);
    await deleteAll(cp).catch(() => undefined);
    await cp.stop();
    await slow.close();
    await fast.close();
    removeDataDir(cp.dataDir);
  }
}

function describe(phase: { summary: Summary; timeouts: number }): string {
  const lost = phase.timeouts
    ? `; ${phase.timeouts} not delivered within ${DELIVERY_TIMEOUT_MS / 1000} s`
    : "";
  if (phase.summary.n === 0) return `none delivered${lost}`;
  return `${ms(phase.summary.median)} / ${ms(phase.summary.max)}${lost}`;
}

async function createUserKey(cp: ControlPlane, name: string): Promise<string> {
  const res = await cp.api("POST", "/api/v1/users", { name });
  if (!res.body?.api_key) throw new Error(`create user: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.api_key;
}

function as(cp: ControlPlane, key: string): As {
  return async (method, route, body) => {
    const res = await fetch(`${cp.url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

async function create(call: As, route: string, body: unknown): Promise<Json> {
  const res = await call("POST", route, body);
  if (res.status !== 201)
    throw new Error(`POST ${route}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const message = (text: string) => ({ role: "user", content: [{ type: "text", text }], run: false });

async function send(call: As, convId: string, text: string): Promise<void> {
  const res = await call("POST", `/api/v1/app-conversations/${convId}/send-message`, message(text));
  if (res.status !== 200)
    throw new Error(`send-message: ${res.status} ${JSON.stringify(res.body)}`);
}

/** BACKLOG messages over the first user's conversations, 16 at a time. */
async function sendBacklog(call: As, convs: Json[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < BACKLOG; i = next++) {
      await send(call, convs[i % convs.length].id, `backlog-${i}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/**
 * SAMPLES messages at a fixed pace (open loop: a slow delivery does not delay the next send, so
 * every sample is taken while the backlog, if any, is there); each one's time from send to its
 * arrival at the receiver. Samples not delivered within DELIVERY_TIMEOUT_MS count as timeouts.
 */
async function measureB(call: As, conv: Json, receiver: Receiver, phase: string) {
  const arrivals: Promise<number | null>[] = [];
  const begun = performance.now();
  for (let i = 0; i < SAMPLES; i++) {
    const wait = begun + i * PACE_MS - performance.now();
    if (wait > 0) await sleep(wait);
    const marker = `fair-${phase}-${i}-${Date.now()}`;
    const started = performance.now();
    const arrived = receiver.arrivalOf(marker, DELIVERY_TIMEOUT_MS).then(
      (at) => at - started,
      () => null,
    );
    await send(call, conv.id, marker);
    arrivals.push(arrived);
  }
  const times = (await Promise.all(arrivals)).filter((t): t is number => t !== null);
  return { summary: summarize(times), timeouts: SAMPLES - times.length };
}

async function deleteAllOf(call: As): Promise<void> {
  const page = await call("GET", "/api/v1/sandboxes/search?limit=100").catch(() => null);
  for (const s of page?.body?.items ?? []) await call("DELETE", `/api/v1/sandboxes/${s.id}`);
}
