import { buildConnector } from "undici";
import type { DestinationDeps } from "./destination-policy";
import { type Refusal, vetDestination } from "./destination-policy";

/** A connection was not opened because the destination is not allowed (see destination-policy). */
export class DestinationRefused extends Error {
  override readonly name = "DestinationRefused";
  constructor(readonly refusal: Refusal) {
    super(`webhook destination refused (${refusal})`);
  }
}

/**
 * An undici connector that vets every new connection: it resolves the host once, checks each
 * address, and connects to a checked address (trying the next one when a connection fails). TLS
 * still verifies the certificate against the URL's host name, which undici passes as servername.
 */
export function checkedConnector(
  deps: DestinationDeps,
  timeoutMs: number,
): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs });
  return (options, callback) => {
    const port = options.port ? Number(options.port) : options.protocol === "https:" ? 443 : 80;
    vetDestination(deps, { host: options.hostname, port }).then(
      (verdict) => {
        if (!verdict.ok) {
          callback(new DestinationRefused(verdict.refusal), null);
          return;
        }
        const tryAt = (index: number) => {
          connect({ ...options, hostname: verdict.addresses[index] ?? "" }, (error, socket) => {
            if (error && index + 1 < verdict.addresses.length) tryAt(index + 1);
            else if (error) callback(error, null);
            else if (socket) callback(null, socket);
          });
        };
        tryAt(0);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
}
