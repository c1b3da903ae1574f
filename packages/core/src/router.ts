import { conversationsRouter } from "./conversations/router";
import { eventsRouter } from "./events/router";
import { sandboxSpecsRouter } from "./sandbox-specs/router";
import { sandboxesRouter } from "./sandboxes/router";
import { settingsRouter } from "./settings/router";
import { router } from "./trpc";
import { usersRouter } from "./users/router";
import { webhooksRouter } from "./webhooks/router";

export const appRouter = router({
  sandboxes: sandboxesRouter,
  sandboxSpecs: sandboxSpecsRouter,
  conversations: conversationsRouter,
  events: eventsRouter,
  webhooks: webhooksRouter,
  users: usersRouter,
  settings: settingsRouter,
});

export type AppRouter = typeof appRouter;
