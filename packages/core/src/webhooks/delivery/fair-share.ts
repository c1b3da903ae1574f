/** Who a delivery belongs to, for sharing the worker's slots. */
export interface Slot {
  ownerId: string;
  webhookId: string;
}

/**
 * Shares the delivery worker's slots between users, then between each user's webhooks. A user
 * holds at most `perOwner` slots, so a user's slow or hanging receivers cannot take the slots
 * other users' deliveries need. When slots free up, the next one goes to the user with the
 * fewest deliveries in flight, among equals the one served longest ago (round-robin), and within
 * that user to the webhook with the fewest in flight, again served longest ago.
 */
export class FairShare {
  private readonly owners = new Map<string, number>();
  private readonly webhooks = new Map<string, number>();
  private readonly servedAt = new Map<string, number>();
  private turn = 0;

  /** Users that hold `perOwner` slots already: their deliveries wait for one of them to end. */
  ownersAtLimit(perOwner: number): string[] {
    return [...this.owners].filter(([, n]) => n >= perOwner).map(([owner]) => owner);
  }

  /**
   * Chooses up to `slots` of `candidates` (given oldest due first) and takes their slots; call
   * `release` for each when its attempt ends.
   */
  pick<T extends Slot>(candidates: readonly T[], slots: number, perOwner: number): T[] {
    const left = [...candidates];
    const picked: T[] = [];
    while (picked.length < slots) {
      let best = -1;
      for (let i = 0; i < left.length; i++) {
        const c = left[i] as T;
        if ((this.owners.get(c.ownerId) ?? 0) >= perOwner) continue;
        if (best === -1 || this.before(c, left[best] as T)) best = i;
      }
      if (best === -1) break;
      const [chosen] = left.splice(best, 1) as [T];
      this.take(chosen);
      picked.push(chosen);
    }
    return picked;
  }

  release(slot: Slot): void {
    decrement(this.owners, slot.ownerId);
    decrement(this.webhooks, slot.webhookId);
  }

  private take(slot: Slot): void {
    this.owners.set(slot.ownerId, (this.owners.get(slot.ownerId) ?? 0) + 1);
    this.webhooks.set(slot.webhookId, (this.webhooks.get(slot.webhookId) ?? 0) + 1);
    this.turn += 1;
    this.servedAt.set(`u:${slot.ownerId}`, this.turn);
    this.servedAt.set(`w:${slot.webhookId}`, this.turn);
  }

  /** Whether `a` should get a slot before `b` (ties keep the candidates' order: oldest due). */
  private before(a: Slot, b: Slot): boolean {
    const keys = (s: Slot) => [
      this.owners.get(s.ownerId) ?? 0,
      this.servedAt.get(`u:${s.ownerId}`) ?? 0,
      this.webhooks.get(s.webhookId) ?? 0,
      this.servedAt.get(`w:${s.webhookId}`) ?? 0,
    ];
    const ka = keys(a);
    const kb = keys(b);
    for (let i = 0; i < ka.length; i++) {
      if ((ka[i] as number) !== (kb[i] as number)) return (ka[i] as number) < (kb[i] as number);
    }
    return false;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 0) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
