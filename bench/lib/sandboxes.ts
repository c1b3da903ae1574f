import type { ControlPlane, Json } from "./control-plane";
import { sleep } from "./stats";

/**
 * GET /sandboxes/{id}?wait_for=… until the status is reached: the server answers as soon as it is
 * (it waits on its own events), so no client poll adds its interval or its requests' CPU to what
 * is measured. A long poll that times out (after `timeout_s`) is asked again.
 */
export async function waitForStatus(
  cp: ControlPlane,
  id: string,
  status: string,
  timeoutMs = 60_000,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const waitS = Math.max(1, Math.min(60, Math.ceil((deadline - Date.now()) / 1000)));
    const res = await cp.api(
      "GET",
      `/api/v1/sandboxes/${id}?wait_for=${status}&timeout_s=${waitS}`,
    );
    if (res.body?.status === status) return res.body;
    if (res.body?.status === "ERROR") throw new Error(`sandbox ${id}: ${res.body.status_detail}`);
    if (res.status !== 200 || Date.now() > deadline) {
      throw new Error(`sandbox ${id} stayed ${res.body?.status} (${res.status})`);
    }
  }
}

/** Starts a sandbox and returns it once RUNNING. */
export async function startRunning(cp: ControlPlane): Promise<Json> {
  const res = await cp.api("POST", "/api/v1/sandboxes", {});
  if (res.status !== 201) throw new Error(`start: ${res.status} ${JSON.stringify(res.body)}`);
  return waitForStatus(cp, res.body.id, "RUNNING");
}

/** Deletes every sandbox of the admin user, a few at a time. */
export async function deleteAll(cp: ControlPlane): Promise<void> {
  for (;;) {
    const page = await cp.api("GET", "/api/v1/sandboxes/search?limit=100");
    const ids: string[] = page.body.items.map((s: Json) => s.id);
    if (ids.length === 0) return;
    for (let i = 0; i < ids.length; i += 8) {
      await Promise.all(
        ids.slice(i, i + 8).map((id) => cp.api("DELETE", `/api/v1/sandboxes/${id}`)),
      );
    }
  }
}

/** Sends a message (run: false) until it is accepted; returns the attempts it took. */
export async function sendUntilAccepted(cp: ControlPlane, conversationId: string, text: string) {
  for (let attempt = 1; ; attempt++) {
    const res = await cp.api("POST", `/api/v1/app-conversations/${conversationId}/send-message`, {
      role: "user",
      content: [{ type: "text", text }],
      run: false,
    });
    if (res.status === 200) return attempt;
    if (![409, 503].includes(res.status) || attempt > 2000) {
      throw new Error(`send-message: ${res.status} ${JSON.stringify(res.body)}`);
    }
    await sleep(2);
  }
}
