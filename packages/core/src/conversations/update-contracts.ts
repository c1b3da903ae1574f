import { z } from "zod";
import { ConversationId } from "./conversation-id";

const clearable = (max: number) => z.string().max(max).nullable().optional();

/**
 * OpenHands' AppConversationUpdateRequest: only the fields present change, `null` clears one.
 * An empty title clears it too.
 */
export const UpdateConversationInput = z.object({
  id: ConversationId,
  title: clearable(10_000),
  public: z.boolean().nullable().optional(),
  selected_repository: clearable(500),
  selected_branch: clearable(500),
  git_provider: clearable(64),
});
export type UpdateConversationInput = z.infer<typeof UpdateConversationInput>;
