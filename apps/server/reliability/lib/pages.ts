import type { Api } from "./api";

// biome-ignore lint/suspicious/noExplicitAny: listed resources are inspected structurally
type Item = Record<string, any>;

/** Every item of a paged control-plane list, following next_page_id. */
export async function listAll(api: Api, route: string, key?: string): Promise<Item[]> {
  const items: Item[] = [];
  let pageId: string | null = null;
  const join = route.includes("?") ? "&" : "?";
  do {
    const query: string = pageId ? `&page_id=${encodeURIComponent(pageId)}` : "";
    const res = await api("GET", `${route}${join}limit=100${query}`, { key });
    if (res.status !== 200) throw new Error(`${route}: ${res.status} ${res.text}`);
    items.push(...res.body.items);
    pageId = res.body.next_page_id;
  } while (pageId);
  return items;
}

/** Every item of a paged agent-server list (conversations or events). */
export async function listAgentServer(url: string, sessionKey: string): Promise<Item[]> {
  const items: Item[] = [];
  let pageId: string | null = null;
  const join = url.includes("?") ? "&" : "?";
  do {
    const query: string = pageId ? `&page_id=${encodeURIComponent(pageId)}` : "";
    const res = await fetch(`${url}${join}limit=100${query}`, {
      headers: { "x-session-api-key": sessionKey },
    });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { items: Item[]; next_page_id: string | null };
    items.push(...page.items);
    pageId = page.next_page_id;
  } while (pageId);
  return items;
}

/** The text of every user message among agent-server events. */
export function userMessageTexts(events: Item[]): string[] {
  return events
    .filter((e) => e.kind === "MessageEvent" && e.source === "user")
    .flatMap((e) => (e.llm_message?.content ?? []) as Item[])
    .map((c) => String(c.text ?? ""));
}
