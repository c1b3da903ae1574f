import pg from "pg";
import type { StoreNotices } from "../port/store";
import { storeError } from "./errors";

/** How long a lost listening connection waits before it is made again. */
const RELISTEN_MS = 1_000;

/**
 * LISTEN/NOTIFY over a shared PostgreSQL: `publish` is one `pg_notify` on the pool; each `listen`
 * holds a connection of its own (a pooled one would be handed to other work between notices). A
 * lost connection is reported as a gap and made again every RELISTEN_MS until it listens.
 */
export function createPgNotices(url: string, pool: pg.Pool): StoreNotices {
  return {
    async publish(channel, payload) {
      await pool.query("SELECT pg_notify($1, $2)", [channel, payload]).catch((error: unknown) => {
        throw storeError(error);
      });
    },
    async listen(channel, onNotice, onGap) {
      let stopped = false;
      let client: pg.Client | null = null;
      let retry: NodeJS.Timeout | null = null;
      const connect = async (): Promise<void> => {
        const next = new pg.Client({ connectionString: url, application_name: "sandbox-server" });
        next.on("notification", (message) => {
          if (message.channel === channel) onNotice(message.payload ?? "");
        });
        const lost = () => {
          if (client !== next || stopped) return;
          client = null;
          onGap();
          schedule();
        };
        next.on("error", lost);
        next.on("end", lost);
        try {
          await next.connect();
          await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        } catch (error) {
          await next.end().catch(() => undefined);
          throw error;
        }
        client = next;
      };
      const schedule = () => {
        retry = setTimeout(() => {
          retry = null;
          if (stopped) return;
          connect().then(
            // Notices sent while nobody listened are lost: the listener hears of the gap.
            () => onGap(),
            () => schedule(),
          );
        }, RELISTEN_MS);
        retry.unref();
      };
      await connect().catch((error: unknown) => {
        throw storeError(error);
      });
      return async () => {
        stopped = true;
        if (retry) clearTimeout(retry);
        const current = client;
        client = null;
        await current?.end().catch(() => undefined);
      };
    },
  };
}
