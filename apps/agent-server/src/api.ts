import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { AgentRunner } from "./agents/runner";
import { BashService } from "./bash/bash-service";
import { bashRoutes } from "./bash/routes";
import type { AgentServerContext, ServerState } from "./context";
import { ConversationStore } from "./conversations/conversation-store";
import { recoverInterruptedRuns } from "./conversations/recover-interrupted";
import { conversationRoutes } from "./conversations/routes";
import { AppError } from "./errors";
import { eventRoutes } from "./events/routes";
import { fileRoutes } from "./files/routes";
import type { Workload } from "./health/routes";
import { sendError } from "./http/errors";
import { readJsonBody } from "./http/json-body";
import { parseTarget } from "./http/request-target";
import { Router } from "./http/router";
import { createSocketServer } from "./sockets/attach-sockets";

export interface ApiOptions {
  dataDir: string;
  commandEnv: Record<string, string>;
  llmApiKey: string | undefined;
  /** Realpath of the directory the file routes may touch. */
  filesRoot: string;
  socketHeartbeatMs: number | undefined;
}

/** Everything behind `/api` and `/sockets`: conversations, agents, commands, files. */
export interface Api {
  /** Answers an authenticated `/api` request. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
  workload(): Workload;
  /** Stops agents and commands, closes sockets. */
  close(): Promise<void>;
}

/**
 * Builds the API: loads the stored conversations (marking interrupted runs as `error`) and
 * composes the routes. The server loads this module on first use (see server.ts), so zod, the
 * contracts and the agents cost nothing until a sandbox is called.
 */
export function createApi(state: ServerState, options: ApiOptions): Api {
  const { logger, workspaceDir } = state;
  const commandEnv = options.commandEnv;
  const ctx: AgentServerContext = {
    state,
    store: new ConversationStore(options.dataDir, logger),
    runner: new AgentRunner({ commandEnv, llmApiKey: options.llmApiKey, logger }),
    bash: new BashService({ workspaceDir, commandEnv, logger }),
    keys: state.keys,
    logger,
    workspaceDir,
    filesRoot: options.filesRoot,
  };
  ctx.store.load();
  recoverInterruptedRuns(ctx.store, logger);

  const router = new Router();
  eventRoutes(router, ctx);
  conversationRoutes(router, ctx);
  bashRoutes(router, ctx);
  fileRoutes(router, ctx);
  const sockets = createSocketServer(ctx, options.socketHeartbeatMs);

  return {
    async handle(req, res) {
      try {
        const { segments, query } = parseTarget(req.url ?? "/");
        const found = router.match(req.method ?? "GET", segments);
        if (!found) throw new AppError("NOT_FOUND", "Not Found");
        const body =
          found.route.body === "json"
            ? await readJsonBody(req, state.limits.jsonBodyLimitBytes)
            : undefined;
        await found.route.handler(
          { raw: req, params: found.params, rest: found.rest, query, body },
          res,
        );
      } catch (error) {
        sendError(req, res, error, logger);
      }
    },
    upgrade: (req, socket, head) => sockets.upgrade(req, socket, head),
    workload: () => ({
      conversations: ctx.store.all().length,
      runningConversations: ctx.runner.runningCount,
    }),
    async close() {
      await Promise.all([ctx.runner.stopAll(), ctx.bash.stopAll()]);
      ctx.store.close();
      sockets.close();
    },
  };
}
