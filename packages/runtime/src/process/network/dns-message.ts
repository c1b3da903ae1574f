/** The little of DNS's wire format the sandbox resolver needs (RFC 1035): one question in, A/AAAA out. */

export const DNS_TYPE = { A: 1, AAAA: 28 } as const;

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

export interface DnsQuestion {
  id: number;
  /** Recursion desired, echoed in the answer. */
  flags: number;
  /** Lower-case, no trailing dot. */
  name: string;
  type: number;
  /** The question section as received, echoed in the answer. */
  question: Buffer;
}

/** The first question of a query, or null for anything else (a response, no question, bad labels). */
export function parseQuery(message: Buffer): DnsQuestion | null {
  if (message.length < 12) return null;
  const flags = message.readUInt16BE(2);
  const isQuery = (flags & 0x8000) === 0 && ((flags >> 11) & 0xf) === 0;
  if (!isQuery || message.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    const length = message[offset];
    if (length === undefined || length > 63) return null;
    offset += 1;
    if (length === 0) break;
    if (offset + length > message.length) return null;
    labels.push(message.toString("latin1", offset, offset + length));
    offset += length;
  }
  if (offset + 4 > message.length) return null;
  return {
    id: message.readUInt16BE(0),
    flags,
    name: labels.join(".").toLowerCase(),
    type: message.readUInt16BE(offset),
    question: message.subarray(12, offset + 4),
  };
}

/** The answer to `query`: `rcode`, and one record per address (each of the question's type). */
export function buildAnswer(
  query: DnsQuestion,
  rcode: number,
  addresses: Buffer[] = [],
  ttl = 60,
): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.id, 0);
  // QR, the query's RD, RA; the rcode.
  header.writeUInt16BE(0x8080 | (query.flags & 0x0100) | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const record = Buffer.alloc(12 + address.length);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(query.type, 2);
    record.writeUInt16BE(1, 4); // class IN
    record.writeUInt32BE(ttl, 6);
    record.writeUInt16BE(address.length, 10);
    address.copy(record, 12);
    return record;
  });
  return Buffer.concat([header, query.question, ...records]);
}
