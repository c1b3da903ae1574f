import { conversationsRouter } from "./conversations/router";
import { sandboxSpecsRouter } from "./sandbox-specs/router";
import { sandboxesRouter } from "./sandboxes/router";
import { router } from "./trpc";
import { usersRouter } from "./users/router";

export const appRouter = router({
  sandboxes: sandboxesRouter,
  sandboxSpecs: sandboxSpecsRouter,
  conversations: conversationsRouter,
  users: usersRouter,
});

export type AppRouter = typeof appRouter;
