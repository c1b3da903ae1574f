import { sleep } from "./poll";
import type { SandboxClient } from "./trpc-client";
import type { ConversationEvent } from "./types";

export interface FollowEventsOptions {
  /** Pause between two reads once every stored event was seen (default 1 s). */
  intervalMs?: number;
  /** Only events of this kind, e.g. `MessageEvent`. */
  kind?: string;
  /** Stops following; the iteration then ends without an error. */
  signal?: AbortSignal;
  /** Stop at the end of the stored events instead of waiting for more. */
  once?: boolean;
}

/**
 * A conversation's stored events, oldest first, then each new one as the control plane stores it
 * (`GET /app-conversations/{id}/events`, polled). Needs only the API key: it works while the
 * sandbox is paused, after it is gone, and where the agent server's port cannot be reached.
 *
 * Paging is keyset-based, so the last page is read again from its own cursor until it fills up
 * and yields a next page; events already yielded from it are skipped by id.
 */
export async function* followConversationEvents(
  client: SandboxClient,
  id: string,
  options: FollowEventsOptions = {},
): AsyncGenerator<ConversationEvent> {
  const { signal } = options;
  let pageId: string | undefined;
  let seen = new Set<string>();
  while (!signal?.aborted) {
    const page = await readPage(client, { id, page_id: pageId, kind: options.kind }, signal);
    if (!page) return;
    for (const event of page.items) {
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      yield event;
    }
    if (page.next_page_id) {
      pageId = page.next_page_id;
      seen = new Set();
      continue;
    }
    if (options.once) return;
    try {
      await sleep(options.intervalMs ?? 1000, signal);
    } catch {
      return;
    }
  }
}

type EventsPage = Awaited<ReturnType<SandboxClient["events"]["search"]["query"]>>;

/** One page, oldest first; undefined when the signal aborted the read. */
async function readPage(
  client: SandboxClient,
  input: { id: string; page_id: string | undefined; kind: string | undefined },
  signal: AbortSignal | undefined,
): Promise<EventsPage | undefined> {
  try {
    return await client.events.search.query(
      { ...input, sort_order: "TIMESTAMP", limit: 100 },
      { signal },
    );
  } catch (error) {
    if (signal?.aborted) return undefined;
    throw error;
  }
}
