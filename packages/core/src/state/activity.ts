/**
 * Last activity per sandbox (memory only: the hot path writes no rows): a message forwarded, an
 * event of its agent. Tells its listeners of each mark, so that work that follows activity (the
 * read of refused connections) is done for the sandboxes that had some, not for every sandbox.
 */
export class SandboxActivity extends Map<string, number> {
  private readonly listeners = new Set<(sandboxId: string) => void>();

  override set(sandboxId: string, at: number): this {
    super.set(sandboxId, at);
    // Undefined while Map's constructor runs (it calls set for initial entries).
    for (const listener of this.listeners ?? []) listener(sandboxId);
    return this;
  }

  /** Calls `listener` on each mark from now on; returns the function that stops it. */
  onActive(listener: (sandboxId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
