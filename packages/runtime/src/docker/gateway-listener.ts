import { errorMessage } from "../error-message";
import type { RuntimeLogger } from "../types";

/**
 * One listener of the control plane's on the sandbox network's gateway (the resolver's socket,
 * the egress proxy's server), shared by every sandbox of the network: opened once per gateway,
 * replaced when the network is made again with another one, forgotten (and logged) when it
 * cannot open, so that the next start tries again.
 */
export class GatewayListener<T extends { close(): unknown }> {
  private current: Promise<T> | null = null;
  private gateway: string | null = null;

  constructor(
    private readonly open: (gateway: string) => Promise<T>,
    private readonly logger: RuntimeLogger,
    /** What cannot listen, for the warning: "sandbox resolver". */
    private readonly what: string,
  ) {}

  listen(gateway: string): Promise<T> {
    if (this.current && this.gateway === gateway) return this.current;
    this.closeCurrent();
    this.gateway = gateway;
    const opening = this.open(gateway);
    this.current = opening;
    opening.catch((error: unknown) => {
      if (this.current === opening) this.current = null;
      this.logger.warn(
        { gateway, reason: errorMessage(error) },
        `${this.what} could not listen on the sandbox network's gateway`,
      );
    });
    return opening;
  }

  async close(): Promise<void> {
    const current = this.current;
    this.current = null;
    this.gateway = null;
    if (current) (await current.catch(() => null))?.close();
  }

  private closeCurrent(): void {
    void this.current?.then(
      (listener) => listener.close(),
      () => undefined,
    );
  }
}
