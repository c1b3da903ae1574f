import { z } from "zod";

const DASHED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^[0-9a-f]{32}$/i;

/** The 8-4-4-4-12 lower-case form of a UUID given with or without dashes. */
export function dashedUuid(id: string): string {
  const hex = id.replaceAll("-", "").toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A conversation (or start task) id: any 8-4-4-4-12 hex id, as the agent server accepts, or the
 * same 32 hex digits without dashes, as OpenHands serialises its ids. Compared in the dashed
 * lower-case form, which is also how it is answered.
 */
export const ConversationId = z
  .string()
  .refine(
    (id) => DASHED.test(id) || HEX.test(id),
    "conversation id must be a UUID (with or without dashes)",
  )
  .transform(dashedUuid)
  .describe("UUID, with or without dashes");

/** At most this many ids in one batch read. */
export const MAX_BATCH_IDS = 100;

/**
 * `ids` of a batch read: a repeated query key (`ids=a&ids=b`) arrives as an array, a single one as
 * a string; both are a list here.
 */
export const ConversationIds = z.preprocess(
  (value) => (typeof value === "string" ? [value] : value),
  z
    .array(ConversationId)
    .min(1, "at least one id")
    .max(MAX_BATCH_IDS, `at most ${MAX_BATCH_IDS} ids`),
);
