/**
 * The worker of bench/ui-stream.ts's fleet shape, in a process of its own: a `writer` agent on the
 * stamping model, its live text said on a PostgresLiveChannel. Configured by environment:
 * TEMPORAL_ADDRESS, TASK_QUEUE, LIVE_PG_URL and LIVE_NOTIFY_CHANNEL. Prints `READY` when polling;
 * stops on SIGTERM.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { PostgresLiveChannel } from '../../src/live-text/postgres.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { createAgentWorker } from '../../src/worker.ts';
import { runChildWorker } from '../../test/support/child-worker.ts';
import { stampingModel } from './stamping-model.ts';

const env = process.env as Record<string, string>;
Runtime.install({ logger: new DefaultLogger('ERROR') });

const connection = await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS! });
const liveChannel = new PostgresLiveChannel({
  connectionString: env.LIVE_PG_URL!,
  channel: env.LIVE_NOTIFY_CHANNEL!,
});
const worker = await createAgentWorker({
  connection,
  taskQueue: env.TASK_QUEUE!,
  agents: { writer: { llm: stampingModel() } },
  memoryStore: new InMemoryMemoryStore(),
  liveChannel,
});
await runChildWorker(worker, connection);
await liveChannel.close();
