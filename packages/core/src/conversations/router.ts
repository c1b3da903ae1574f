import { router } from "../trpc";
import { createConversation } from "./create-conversation";
import { getConversation } from "./get-conversation";
import { listConversations } from "./list-conversations";
import { sendMessage } from "./send-message";

export const conversationsRouter = router({
  create: createConversation,
  list: listConversations,
  get: getConversation,
  sendMessage,
});
