/**
 * The worker of bench/open-sessions.ts, in a process of its own (so its resident memory is its own):
 * a `chat` agent whose model answers at once, its conversations in a SQLite file. Configured by
 * environment: TEMPORAL_ADDRESS, TASK_QUEUE, MEMORY_DB, WORKFLOW_BUNDLE (a prebuilt workflow bundle, as a
 * worker from dist/ loads: without it the worker would bundle the workflows itself, and webpack's
 * memory would stay in its resident figure), and MAX_CACHED_WORKFLOWS (default: the worker's own).
 * Prints `READY` when polling; stops on SIGTERM.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import { instantModel as instant } from '../loop-agent.ts';
import { createAgentWorker } from '../../src/worker.ts';
import { runChildWorker } from '../../test/support/child-worker.ts';

const env = process.env as Record<string, string>;
Runtime.install({ logger: new DefaultLogger('ERROR') });

const connection = await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS! });
const worker = await createAgentWorker({
  connection,
  taskQueue: env.TASK_QUEUE!,
  agents: { chat: { llm: instant } },
  memoryStore: new SqliteMemoryStore({ path: env.MEMORY_DB! }),
  workflowBundle: { codePath: env.WORKFLOW_BUNDLE! },
  ...(env.MAX_CACHED_WORKFLOWS ? { maxCachedWorkflows: Number(env.MAX_CACHED_WORKFLOWS) } : {}),
});
await runChildWorker(worker, connection);
