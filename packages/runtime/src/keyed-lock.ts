/**
 * Runs tasks for the same key one after another while different keys proceed in parallel. Pause,
 * resume and delete of one sandbox must not interleave (two concurrent resumes of an exited
 * sandbox would launch two agent servers). A task that fails does not block the next one.
 * One implementation, here: the process runtime and the core's sandbox locks import it.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
