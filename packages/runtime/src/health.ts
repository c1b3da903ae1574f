/**
 * The agent server's `/health` check, shared by every runtime: a sandbox counts as running only
 * once its agent server answers it.
 */

import { type ClientRequest, get as httpGet } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { errorMessage } from "./error-message";

export type HealthProbe = { ok: true } | { ok: false; reason: string };

/** A healthy answer is a few bytes; more is read no further (and is not one). */
const MAX_BODY_BYTES = 4096;

/**
 * One `GET {baseUrl}/health`; never throws. `ok` only for 200 `{"status":"ok"}`.
 *
 * `node:http` on a connection of its own, not `fetch`: the supervisor probes every sandbox once
 * per sweep, each on a new connection (a sweep is longer than any keep-alive), and fetch's
 * machinery costs more than twice the CPU of a plain request for that.
 */
export function probeHealth(baseUrl: string, timeoutMs: number): Promise<HealthProbe> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (probe: HealthProbe) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(probe);
    };
    const failed = (error: unknown) => finish({ ok: false, reason: errorMessage(error) });
    let req: ClientRequest;
    try {
      // Appended rather than resolved, so a base URL with a path prefix keeps it.
      req = httpGet(`${baseUrl.replace(/\/+$/, "")}/health`, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        res.on("error", failed);
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          const healthy =
            status >= 200 && status < 300 && size <= MAX_BODY_BYTES && isHealthyBody(parse(chunks));
          finish(healthy ? { ok: true } : { ok: false, reason: `/health answered ${status}` });
        });
      });
    } catch (error) {
      failed(error);
      return;
    }
    req.on("error", failed);
    // A plain (ref'd) timer: a script awaiting a probe of a silent port must not exit mid-await.
    timer = setTimeout(() => {
      finish({ ok: false, reason: `/health did not answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
  });
}

function parse(chunks: Buffer[]): unknown {
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return null;
  }
}

export interface WaitForHealthOptions {
  /**
   * Overall budget for starting probes; the last probe may end up to `probeTimeoutMs` later.
   * Probes are never shortened to fit the budget: a probe cut to a few milliseconds would time
   * out before the connection could even be refused, and its "did not answer" would hide the
   * real reason (ECONNREFUSED, a 503) from the error.
   */
  timeoutMs: number;
  /** Budget of one probe (default 1000 ms). */
  probeTimeoutMs?: number;
  /** Pause between probes (default 100 ms). */
  intervalMs?: number;
  /**
   * Asked before every probe; a returned reason ends the wait at once with that reason
   * (e.g. the process or container exited, so waiting longer cannot help).
   */
  giveUpWhen?: () => string | null | Promise<string | null>;
  /** Ask `giveUpWhen` at most this often (it may be costly, e.g. a Docker API call; default 0). */
  giveUpEveryMs?: number;
  /** The clock the budget and `giveUpEveryMs` are measured on (epoch ms; default `Date.now`). */
  now?: () => number;
}

/** Resolves once `/health` answers; rejects with the reason on timeout or when told to give up. */
export async function waitForHealth(baseUrl: string, options: WaitForHealthOptions): Promise<void> {
  const { timeoutMs, probeTimeoutMs = 1000, intervalMs = 100, giveUpWhen } = options;
  const giveUpEveryMs = options.giveUpEveryMs ?? 0;
  const now = options.now ?? Date.now;
  const deadline = now() + timeoutMs;
  let lastReason = "no probe made";
  let askedAt = Number.NEGATIVE_INFINITY;
  for (;;) {
    if (giveUpWhen && now() - askedAt >= giveUpEveryMs) {
      askedAt = now();
      const giveUpReason = await giveUpWhen();
      if (giveUpReason !== null) throw new Error(giveUpReason);
    }
    const remaining = deadline - now();
    if (remaining <= 0) {
      throw new Error(`no answer from ${baseUrl}/health within ${timeoutMs} ms (${lastReason})`);
    }
    const probe = await probeHealth(baseUrl, probeTimeoutMs);
    if (probe.ok) return;
    lastReason = probe.reason;
    await sleep(Math.min(intervalMs, Math.max(0, deadline - now())));
  }
}

function isHealthyBody(body: unknown): boolean {
  return typeof body === "object" && body !== null && "status" in body && body.status === "ok";
}
