import { router } from "../trpc";
import { searchConversationEvents } from "./search-events";

export const eventsRouter = router({
  search: searchConversationEvents,
});
