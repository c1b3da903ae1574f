import { z } from "zod";

/**
 * Message contracts shared by the agent server and the control plane's send-message proxy.
 * Both validate with these exact schemas, so a body accepted by one is accepted by the other.
 * Defaults (role, run) are applied by the agent server only; the proxy never fills them in.
 */
export const TextContent = z.object({
  type: z.literal("text"),
  text: z.string().min(1, "text must not be empty"),
  cache_prompt: z.boolean().optional(),
});
export type TextContent = z.infer<typeof TextContent>;

export const ImageContent = z.object({
  type: z.literal("image"),
  image_urls: z.array(z.string().min(1)).min(1, "image_urls must not be empty"),
  cache_prompt: z.boolean().optional(),
});
export type ImageContent = z.infer<typeof ImageContent>;

export const ContentItem = z.discriminatedUnion("type", [TextContent, ImageContent]);
export type ContentItem = z.infer<typeof ContentItem>;

/** A list of content items (at least one), or a single TextContent object. */
export const MessageContent = z.union([
  z.array(ContentItem).min(1, "content must hold at least one item"),
  TextContent,
]);
export type MessageContent = z.infer<typeof MessageContent>;

export const SendMessageRequest = z.object({
  role: z.literal("user").optional(),
  content: MessageContent,
  run: z.boolean().optional(),
});
export type SendMessageRequest = z.infer<typeof SendMessageRequest>;

/** Normalises content to the list form the agent server stores. */
export function contentItems(content: MessageContent): ContentItem[] {
  return Array.isArray(content) ? content : [content];
}
