import { statSync } from "node:fs";
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
/** Intervals without a change to the log after which the worker ends (the next change starts one). */
const IDLE_INTERVALS = 20;

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
 * its own runs a PASSIVE checkpoint every CHECKPOINT_INTERVAL_MS in which the log changed. Should
 * the worker fail, the write connection checkpoints by itself again, as SQLite does by default.
 *
 * The worker runs only while there is something to copy: it starts when the log changes (its
 * size or modification time, one stat per interval) and ends after IDLE_INTERVALS without a
 * change, so a control plane at rest carries no second thread for it.
 */
export function startWalCheckpointer(path: string, writer: Database.Database): WalCheckpointer {
  writer.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  writer.pragma("wal_autocheckpoint = 0");
  let closing = false;
  let failed = false;
  let worker: Worker | null = null;
  let inFlight = false;
  let seen: string | null = null;
  let unchanged = 0;

  const fallBack = () => {
    if (failed) return;
    failed = true;
    clearInterval(timer);
    if (!closing && writer.open)
      writer.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
  };
  const spawn = (): Worker => {
    const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path } });
    started.unref();
    started.on("message", () => {
      inFlight = false;
    });
    // A failed start (the driver not loadable there, the file gone) or a crash: SQLite's default.
    started.on("error", fallBack);
    started.on("exit", () => {
      if (worker !== started) return;
      worker = null;
      fallBack();
    });
    return started;
  };
  /** Ends the worker (idle, or closing); resolves once it exited. */
  const retire = (): Promise<void> => {
    const ending = worker;
    worker = null;
    if (!ending) return Promise.resolve();
    inFlight = false;
    const exited = new Promise<void>((resolve) => ending.once("exit", () => resolve()));
    ending.postMessage("close");
    const timeout = setTimeout(() => void ending.terminate(), CLOSE_TIMEOUT_MS);
    return exited.finally(() => clearTimeout(timeout));
  };

  const timer = setInterval(() => {
    if (inFlight) return;
    const now = walStamp(`${path}-wal`);
    if (now === seen) {
      if (worker && ++unchanged >= IDLE_INTERVALS) void retire();
      return;
    }
    seen = now;
    unchanged = 0;
    worker ??= spawn();
    inFlight = true;
    worker.postMessage("checkpoint");
  }, CHECKPOINT_INTERVAL_MS);
  timer.unref();

  return {
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(timer);
      await retire();
    },
  };
}

/** What changes when the log is written to: its size and modification time; null without one. */
function walStamp(file: string): string | null {
  try {
    const { size, mtimeMs } = statSync(file);
    return `${size}:${mtimeMs}`;
  } catch {
    return null;
  }
}
