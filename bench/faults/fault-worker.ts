/**
 * The worker of the fault suite, in a process of its own so that the suite can SIGKILL, SIGTERM
 * or SIGSTOP it. Configured by environment: TEMPORAL_ADDRESS, TASK_QUEUE, WORKFLOW_BUNDLE,
 * MEMORY_DB, UPSTREAM (the local service the `upstream_write` tool writes to). Agents:
 * - `writer`: three steps, each one `upstream_write` call (n = 1, 2, 3), then an answer;
 * - `chatty`: answers every chat turn, naming the prompt;
 * - `fastWriter`: `writer` with `upstream_write` as a fast tool (its calls ride with the next model step);
 * - `slow`: one `slow_write` call that takes 2 s (for graceful shutdown), then an answer.
 * Prints `READY` when polling; exits after SIGTERM once `worker.shutdown()` has let running calls end.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { UpstreamError } from '../../src/errors.ts';
import { httpRequest } from '../../src/http/request.ts';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { createAgentWorker } from '../../src/worker.ts';
import { runChildWorker } from '../../test/support/child-worker.ts';

const env = process.env as Record<string, string>;
Runtime.install({ logger: new DefaultLogger('ERROR') });

/** Writes record n of this run to the upstream, with an idempotency key stable across retries. */
class UpstreamWriteTool extends BaseConnectorTool {
  readonly name: string;
  readonly description = 'Writes one record to the upstream service';
  readonly parameters = z.object({ n: z.number() });
  readonly #delayMs: number;
  constructor(name = 'upstream_write', delayMs = 0, fast = false) {
    super({ fast });
    this.name = name;
    this.#delayMs = delayMs;
  }
  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    if (this.#delayMs) await sleep(this.#delayMs);
    const response = await httpRequest({
      method: 'POST',
      url: `${env.UPSTREAM}/records`,
      headers: {
        'content-type': 'application/json',
        'idempotency-key': `${context.workflowId}/${context.callId}`,
      },
      body: JSON.stringify({ run: context.workflowId, n: args.n, cancelled: context.signal.aborted }),
      idempotent: true, // the key makes a repeated write harmless
      signal: context.signal,
    });
    if (response.status >= 300) throw new UpstreamError(`upstream answered ${response.status}`);
    return { text: `wrote ${String(args.n)}`, metadata: {} };
  }
}

const toolResults = (request: ModelRequest) => request.messages.filter((m) => m.role === 'tool').length;

/** Three steps, each one `upstream_write` call (n = 1, 2, 3), then an answer. */
const writes = (request: ModelRequest): ScriptedStep => {
  const done = toolResults(request);
  return done < 3
    ? { toolCalls: [{ name: 'upstream_write', args: { n: done + 1 }, id: `w${done + 1}` }] }
    : { text: `wrote ${done} records` };
};

const steps = (answer: (request: ModelRequest) => ScriptedStep) =>
  new ScriptedModel(Array.from({ length: 10_000 }, () => answer));
const timeouts = { modelHeartbeatMs: 2000, toolHeartbeatMs: 2000 };

const connection = await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS! });
const worker = await createAgentWorker({
  connection,
  taskQueue: env.TASK_QUEUE!,
  memoryStore: new SqliteMemoryStore({ path: env.MEMORY_DB! }),
  workflowBundle: { codePath: env.WORKFLOW_BUNDLE! },
  workerOptions: { stickyQueueScheduleToStartTimeout: '1s' },
  agents: {
    writer: { llm: steps(writes), tools: [new UpstreamWriteTool()], timeouts },
    fastWriter: { llm: steps(writes), tools: [new UpstreamWriteTool('upstream_write', 0, true)], timeouts },
    chatty: {
      llm: steps((request) => {
        const users = request.messages.filter((m) => m.role === 'user');
        return { text: `answer to ${String(users.at(-1)?.content)}` };
      }),
      timeouts,
    },
    slow: {
      llm: steps((request) =>
        toolResults(request) === 0
          ? { toolCalls: [{ name: 'slow_write', args: { n: 1 }, id: 's1' }] }
          : { text: 'slow write done' },
      ),
      tools: [new UpstreamWriteTool('slow_write', 2000)],
      timeouts,
    },
  },
});
await runChildWorker(worker, connection);
