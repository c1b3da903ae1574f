import { router } from "../trpc";
import { countConversations } from "./procedures/count-conversations";
import { countStartTasks } from "./procedures/count-start-tasks";
import { createConversation } from "./procedures/create-conversation";
import { deleteConversation } from "./procedures/delete-conversation";
import { getConversation } from "./procedures/get-conversation";
import { getStartTasks } from "./procedures/get-start-tasks";
import { listConversations } from "./procedures/list-conversations";
import { searchConversations } from "./procedures/search-conversations";
import { searchStartTasks } from "./procedures/search-start-tasks";
import { sendMessage } from "./procedures/send-message";
import { streamStartConversation } from "./procedures/stream-start";
import { updateConversation } from "./procedures/update-conversation";

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
