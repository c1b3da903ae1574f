// The ingest worker's entry (bundled as dist/event-worker.js): follows conversations and stores
// their events on its own thread, over its own connection to the server's store.
import { parentPort, workerData } from "node:worker_threads";
import type { IngestWorkerData } from "@sandbox-server/core";
import { runIngestWorker } from "@sandbox-server/core/ingest-worker";
import { openAttachedStore, type StoreLocation } from "./open-store";

if (!parentPort) throw new Error("event-worker.js runs as a worker thread of the server");
const data = workerData as IngestWorkerData<StoreLocation>;
await runIngestWorker(parentPort, () => openAttachedStore(data.store), data.config);
