/**
 * The agent server's `/health` check, shared by every runtime: a sandbox counts as running only
 * once its agent server answers it.
 */

import { setTimeout as sleep } from "node:timers/promises";
import { errorMessage } from "./error-message";

export type HealthProbe = { ok: true } | { ok: false; reason: string };

/** One `GET {baseUrl}/health`; never throws. `ok` only for 200 `{"status":"ok"}`. */
export async function probeHealth(baseUrl: string, timeoutMs: number): Promise<HealthProbe> {
  // A plain (ref'd) timer, not AbortSignal.timeout: the latter does not keep Node alive, so a
  // script awaiting a probe of a silent port could exit mid-await.
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException("timed out", "TimeoutError")),
    timeoutMs,
  );
  try {
    // Appended rather than resolved, so a base URL with a path prefix keeps it.
    const response = await fetch(`${baseUrl.replace(/\/+$/, "")}/health`, {
      signal: controller.signal,
    });
    const body: unknown = await response.json().catch(() => null);
    if (response.ok && isHealthyBody(body)) return { ok: true };
    return { ok: false, reason: `/health answered ${response.status}` };
  } catch (error) {
    return { ok: false, reason: describeFetchError(error, timeoutMs) };
  } finally {
    clearTimeout(timer);
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

function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === "TimeoutError") {
    return `/health did not answer within ${timeoutMs} ms`;
  }
  // fetch wraps the interesting part (ECONNREFUSED, ECONNRESET) in `cause`.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return errorMessage(cause);
}
