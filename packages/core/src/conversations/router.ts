import { router } from "../trpc";
import { countConversations } from "./count-conversations";
import { countStartTasks } from "./count-start-tasks";
import { createConversation } from "./create-conversation";
import { deleteConversation } from "./delete-conversation";
import { getConversation } from "./get-conversation";
import { getStartTasks } from "./get-start-tasks";
import { listConversations } from "./list-conversations";
import { searchConversations } from "./search-conversations";
import { searchStartTasks } from "./search-start-tasks";
import { sendMessage } from "./send-message";
import { streamStartConversation } from "./stream-start";
import { updateConversation } from "./update-conversation";

export const conversationsRouter = router({
  create: createConversation,
  streamStart: streamStartConversation,
  list: listConversations,
  search: searchConversations,
  count: countConversations,
  get: getConversation,
  update: updateConversation,
  delete: deleteConversation,
  sendMessage,
  getStartTasks,
  searchStartTasks,
  countStartTasks,
});
