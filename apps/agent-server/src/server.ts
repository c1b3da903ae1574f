import http from "node:http";
import type { AddressInfo } from "node:net";
import { AgentRunner } from "./agents/runner";
import { createApp } from "./app";
import { BashService } from "./bash/bash-service";
import type { AgentServerContext } from "./context";
import { ConversationStore } from "./conversations/conversation-store";
import { recoverInterruptedRuns } from "./conversations/recover-interrupted";
import { createKeyChecker } from "./http/auth";
import { type Logger, silentLogger } from "./logger";
import { attachSockets } from "./sockets/attach-sockets";
import { VERSION } from "./version";

export interface AgentServerOptions {
  /** Conversations and events live under `<dataDir>/conversations`. */
  dataDir: string;
  /** Default working directory of conversations and commands. */
  workspaceDir: string;
  /** Accepted `X-Session-API-Key` values; empty or absent: no auth. */
  sessionApiKeys?: readonly string[];
  /** Wins over an api_key in a conversation's agent. */
  llmApiKey?: string;
  /** Environment of commands run in the sandbox (default: none but PATH and HOME). */
  commandEnv?: Record<string, string>;
  logger?: Logger;
  /** WebSocket ping interval (default 30 s); clients silent for two intervals are dropped. */
  socketHeartbeatMs?: number;
}

export interface BoundAddress {
  host: string;
  port: number;
}

export interface AgentServer {
  /** Loads the stored conversations, then listens. Port 0 picks a free port. */
  listen(port: number, host?: string): Promise<BoundAddress>;
  /** Stops agents and commands, closes sockets and connections. */
  close(): Promise<void>;
  readonly context: AgentServerContext;
}

export function createAgentServer(options: AgentServerOptions): AgentServer {
  const logger = options.logger ?? silentLogger;
  const commandEnv = options.commandEnv ?? defaultCommandEnv();
  const ctx: AgentServerContext = {
    store: new ConversationStore(options.dataDir, logger),
    runner: new AgentRunner({ commandEnv, llmApiKey: options.llmApiKey, logger }),
    bash: new BashService({ workspaceDir: options.workspaceDir, commandEnv, logger }),
    keys: createKeyChecker(options.sessionApiKeys ?? []),
    logger,
    workspaceDir: options.workspaceDir,
    version: VERSION,
    startedAt: Date.now(),
    lastActivityAt: Date.now(),
    ready: false,
  };
  const server = http.createServer(createApp(ctx));
  const closeSockets = attachSockets(server, ctx, options.socketHeartbeatMs);
  let closing: Promise<void> | undefined;

  return {
    context: ctx,
    async listen(port, host = "127.0.0.1") {
      ctx.store.load();
      recoverInterruptedRuns(ctx.store, logger);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      ctx.ready = true;
      const address = server.address() as AddressInfo;
      return { host: address.address, port: address.port };
    },
    close() {
      closing ??= (async () => {
        ctx.ready = false;
        await Promise.all([ctx.runner.stopAll(), ctx.bash.stopAll()]);
        closeSockets();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 1000).unref();
        });
      })();
      return closing;
    },
  };
}

function defaultCommandEnv(): Record<string, string> {
  return { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" };
}
