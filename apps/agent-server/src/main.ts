import { ConfigError, readConfig } from "./env";
import { createLogger, describeError } from "./logger";
import { createAgentServer } from "./server";

/**
 * CLI entry. Contract with the control plane's process runtime: once listening, exactly one line
 * on stdout, `{"event":"listening","host":...,"port":...}`; logs on stderr; SIGTERM → exit 0.
 */
async function main(): Promise<void> {
  let config: ReturnType<typeof readConfig>;
  try {
    config = readConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  // Every known failure is handled where it happens; a missed one is logged, not fatal, so one
  // conversation's bug never takes the whole sandbox down.
  process.on("unhandledRejection", (error) => {
    logger.error("unhandled rejection", { error: describeError(error) });
  });
  let server: ReturnType<typeof createAgentServer>;
  try {
    server = createAgentServer({
      dataDir: config.dataDir,
      workspaceDir: config.workspaceDir,
      sessionApiKeys: config.sessionApiKeys,
      llmApiKey: config.llmApiKey,
      commandEnv: config.commandEnv,
      filesRoot: config.filesRoot,
      limits: config.limits,
      logger,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  // Installed before the listening line: a SIGTERM sent as soon as it appears (a delete right
  // after a create) found Node's default handler and killed the process without a shutdown
  // (30 of 30 here). A signal during the start waits for it, then closes.
  const listening = server.listen(config.port, config.host);
  const shutdown = (signal: string) => {
    logger.info("shutting down", { signal });
    listening
      .catch(() => undefined)
      .then(() => server.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error("shutdown failed", { error: describeError(error) });
          process.exit(1);
        },
      );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));

  const address = await listening;
  process.stdout.write(`${JSON.stringify({ event: "listening", ...address })}\n`);
  logger.info("agent server listening", {
    ...address,
    auth: config.sessionApiKeys.length > 0,
    data_dir: config.dataDir,
    files_root: config.filesRoot,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`agent server failed to start: ${describeError(error)}\n`);
  process.exit(1);
});
