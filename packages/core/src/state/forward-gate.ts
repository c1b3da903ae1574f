import { AppError } from "../errors";

interface GateState {
  /** Forwards (send-message) between `enter` and `leave`. */
  inFlight: number;
  /** Why the gate is closed ("pausing", "being deleted"); null while open. */
  closedFor: string | null;
  /** Called whenever `inFlight` drops to 0. */
  drained: (() => void)[];
}

/**
 * Orders send-message forwards and the moves that stop an agent server (pause, delete), per
 * sandbox, in memory — no database write on the hot path. A forward enters before it reads the
 * sandbox's status and leaves once the agent server answered or the forward failed. A stop closes
 * the gate (new forwards are refused at once, 409), waits — bounded — for the forwards already
 * inside, does its work, and opens the gate again; by then the store shows the new status, which
 * every later forward reads after entering. So no agent server is frozen or removed with a
 * forward in flight, and a message answered 409 was never sent anywhere.
 *
 * One control-plane process: forwards and stops of a sandbox all pass through this one object.
 */
export class ForwardGate {
  private readonly gates = new Map<string, GateState>();

  /** Enters for one forward: null when admitted (call `leave` after), else why it is closed. */
  enter(sandboxId: string): string | null {
    const gate = this.gates.get(sandboxId);
    if (gate?.closedFor) return gate.closedFor;
    if (gate) gate.inFlight++;
    else this.gates.set(sandboxId, { inFlight: 1, closedFor: null, drained: [] });
    return null;
  }

  leave(sandboxId: string): void {
    const gate = this.gates.get(sandboxId);
    if (!gate) return;
    gate.inFlight--;
    if (gate.inFlight > 0) return;
    for (const notify of gate.drained.splice(0)) notify();
    if (gate.closedFor === null) this.gates.delete(sandboxId);
  }

  /** Forwards to this sandbox in flight right now. */
  inFlight(sandboxId: string): number {
    return this.gates.get(sandboxId)?.inFlight ?? 0;
  }

  /**
   * Runs `work` with the gate closed and no forward in flight. Waits at most `drainTimeoutMs` for
   * the forwards already admitted (each is bounded by the agent request timeout, so a bound a
   * little above it is never reached in practice); past it, `work` does not run and the caller
   * gets 503 SANDBOX_BUSY. Callers hold the sandbox's lifecycle lock, so stops never nest.
   */
  async whileClosed<T>(
    sandboxId: string,
    reason: string,
    drainTimeoutMs: number,
    work: () => Promise<T>,
  ): Promise<T> {
    const gate = this.gates.get(sandboxId) ?? { inFlight: 0, closedFor: null, drained: [] };
    this.gates.set(sandboxId, gate);
    gate.closedFor = reason;
    try {
      if (!(await drain(gate, drainTimeoutMs))) {
        throw new AppError(
          "SANDBOX_BUSY",
          `Sandbox ${sandboxId}: ${gate.inFlight} message(s) to its agent server did not finish within ${drainTimeoutMs} ms; try again`,
          { details: { sandbox_id: sandboxId } },
        );
      }
      return await work();
    } finally {
      gate.closedFor = null;
      if (gate.inFlight === 0 && this.gates.get(sandboxId) === gate) this.gates.delete(sandboxId);
    }
  }
}

function drain(gate: GateState, timeoutMs: number): Promise<boolean> {
  if (gate.inFlight === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const notify = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      const at = gate.drained.indexOf(notify);
      if (at !== -1) gate.drained.splice(at, 1);
      resolve(false);
    }, timeoutMs);
    gate.drained.push(notify);
  });
}
