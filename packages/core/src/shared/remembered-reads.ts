/**
 * Store reads remembered for a while: a read-through map with a time to live, bounded by size,
 * whose invalidations win over reads in flight. A read that began before a `forget`/`clear` does
 * not remember what it read (it may predate the change that was forgotten). Past `max` entries all
 * are dropped: a bound, not an eviction policy.
 */
export class RememberedReads<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private generation = 0;

  constructor(private readonly options: { ttlMs: number; now: () => number; max?: number }) {}

  /** The remembered value, while it is fresh. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    return entry && entry.until > this.options.now() ? entry.value : undefined;
  }

  /** Reads through `read`; remembers the value when `keep` accepts it and nothing was forgotten meanwhile. */
  async read(
    key: string,
    read: () => Promise<V | undefined>,
    keep: (value: V) => boolean,
  ): Promise<V | undefined> {
    const now = this.options.now();
    const generation = this.generation;
    const value = await read();
    if (value !== undefined && keep(value) && generation === this.generation) {
      if (this.entries.size >= (this.options.max ?? 10_000)) this.entries.clear();
      this.entries.set(key, { value, until: now + this.options.ttlMs });
    }
    return value;
  }

  forget(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  /** Forgets every remembered value `drop` matches. */
  forgetWhere(drop: (value: V) => boolean): void {
    this.generation++;
    for (const [key, entry] of this.entries) if (drop(entry.value)) this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
