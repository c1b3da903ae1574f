import { createSession } from "./connection";
import { errorLine } from "./errors";
import { stdout } from "./output";
import { createProgram } from "./program";

const controller = new AbortController();
const session = createSession(process.env, process.cwd());
const program = createProgram({
  session,
  out: stdout,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});

// Ctrl-C ends waits and follows cleanly; a second one exits at once.
process.once("SIGINT", () => {
  controller.abort();
  process.once("SIGINT", () => process.exit(130));
});
// `sandbox-server ... | head` closes the pipe early: that is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
});

program.parseAsync(process.argv).catch((error: unknown) => {
  if (controller.signal.aborted) {
    process.exitCode = 130;
    return;
  }
  process.stderr.write(`sandbox-server: error: ${errorLine(error, session.url)}\n`);
  process.exitCode = 1;
});
