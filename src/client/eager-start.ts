import { InternalConnectionLikeSymbol, type Client, type InternalConnectionLike } from '@temporalio/client';

/**
 * Whether runs started through this client can start eagerly: its connection is a worker's
 * `NativeConnection`, so when a worker of the run's task queue in this process has a free slot,
 * the server hands the run's first workflow task back in the start call's reply (no trip through
 * the task queue). Without such a worker the SDK leaves the request out, and the run is dispatched
 * as usual. The SDK marks the capability with a symbol it keeps internal: should it go, runs start
 * through the task queue again, and test/integration/eager-start.test.ts says so.
 */
export function canStartEagerly(client: Client): boolean {
  return (
    (client.connection as InternalConnectionLike)[InternalConnectionLikeSymbol]?.supportsEagerStart === true
  );
}
