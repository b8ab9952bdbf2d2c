import type { ConnectionLike, Metadata } from '@temporalio/client';

/**
 * A Temporal client connection that exists before its server does: every service call first waits
 * for `connect()` (which may start the embedded server and the worker), then goes to the real
 * connection. `agent.temporal` hands out a client over one, so it answers before the first run.
 */
export class LazyConnection implements ConnectionLike {
  readonly plugins = [];
  readonly workflowService: ConnectionLike['workflowService'];
  readonly operatorService: ConnectionLike['operatorService'];
  readonly #connect: () => Promise<ConnectionLike>;

  constructor(connect: () => Promise<ConnectionLike>) {
    this.#connect = connect;
    this.workflowService = this.#service('workflowService');
    this.operatorService = this.#service('operatorService');
  }

  async ensureConnected(): Promise<void> {
    await (await this.#connect()).ensureConnected();
  }

  /** The agent owns the real connection and closes it in `agent.close()`; this closes nothing. */
  async close(): Promise<void> {}

  async withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R> {
    return (await this.#connect()).withDeadline(deadline, fn);
  }

  async withMetadata<R>(metadata: Metadata, fn: () => Promise<R>): Promise<R> {
    return (await this.#connect()).withMetadata(metadata, fn);
  }

  async withAbortSignal<R>(abortSignal: AbortSignal, fn: () => Promise<R>): Promise<R> {
    return (await this.#connect()).withAbortSignal(abortSignal, fn);
  }

  /** A stand-in service whose every method connects first and then calls the real one. */
  #service<K extends 'workflowService' | 'operatorService'>(name: K): ConnectionLike[K] {
    return new Proxy({} as ConnectionLike[K], {
      get: (_target, method) => {
        if (typeof method !== 'string' || method === 'then') return undefined;
        return async (...args: unknown[]) => {
          const service = (await this.#connect())[name] as unknown as Record<
            string,
            (...a: unknown[]) => Promise<unknown>
          >;
          return service[method]!(...args);
        };
      },
    });
  }
}
