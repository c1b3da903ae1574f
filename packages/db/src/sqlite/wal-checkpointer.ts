import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

/** How often the worker copies the write-ahead log into the database file. */
export const CHECKPOINT_INTERVAL_MS = 500;
/** After a checkpoint that let the log start over, SQLite truncates a larger file to this. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/** SQLite's own default, restored on the write connection should the worker fail. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;
const CLOSE_TIMEOUT_MS = 2_000;

// Evaluated in the worker (no file to ship beside the server bundle): its own connection to the
// file, a PASSIVE checkpoint per message (it never waits for, nor blocks, readers or the writer).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String(error && error.message) });
  }
});
`;

export interface WalCheckpointer {
  /** Stops checkpointing and closes the worker's connection (before the store's own close). */
  close(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the event loop. SQLite checkpoints inside the COMMIT that crosses its
 * threshold (1000 pages), on the connection that commits: with events stored in a steady stream,
 * such a commit stalls the loop that serves requests while it copies pages and syncs both files,
 * which is what a request's tail latency then waits for. Here the write
 * connection never checkpoints (`wal_autocheckpoint = 0`); a worker thread with a connection of
 * its own runs a PASSIVE checkpoint every CHECKPOINT_INTERVAL_MS. Should the worker fail, the
 * write connection checkpoints by itself again, as SQLite does by default.
 */
export function startWalCheckpointer(path: string, writer: Database.Database): WalCheckpointer {
  writer.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path } });
  worker.unref();
  writer.pragma("wal_autocheckpoint = 0");
  let closing = false;
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight) return;
    inFlight = true;
    worker.postMessage("checkpoint");
  }, CHECKPOINT_INTERVAL_MS);
  timer.unref();

  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const fallBack = () => {
    clearInterval(timer);
    if (!closing && writer.open)
      writer.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
  };
  worker.on("message", () => {
    inFlight = false;
  });
  // A failed start (the driver not loadable there, the file gone) or a crash: SQLite's default.
  worker.on("error", fallBack);
  worker.on("exit", fallBack);

  return {
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(timer);
      worker.postMessage("close");
      const timeout = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
      await exited;
      clearTimeout(timeout);
    },
  };
}
