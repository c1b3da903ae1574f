import { router } from "../trpc";
import { countEvents } from "./procedures/count-events";
import { searchEvents } from "./procedures/search-conversation-events";
import { searchConversationEvents } from "./procedures/search-events";

export const eventsRouter = router({
  search: searchConversationEvents,
  searchByConversation: searchEvents,
  count: countEvents,
});
