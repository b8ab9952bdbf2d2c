import type { NativeConnection, Worker } from '@temporalio/worker';

/**
 * The end of every worker that runs in a child process of a test or bench: it stops gracefully on
 * SIGTERM, prints `READY` once polling (what the parent waits for), and closes its connection when
 * the worker has stopped.
 */
export async function runChildWorker(worker: Worker, connection?: NativeConnection): Promise<void> {
  process.on('SIGTERM', () => worker.shutdown());
  const running = worker.run();
  console.log('READY');
  await running;
  await connection?.close();
}
