import { router } from "../trpc";
import { countEvents } from "./count-events";
import { searchEvents } from "./search-conversation-events";
import { searchConversationEvents } from "./search-events";

export const eventsRouter = router({
  search: searchConversationEvents,
  searchByConversation: searchEvents,
  count: countEvents,
});
