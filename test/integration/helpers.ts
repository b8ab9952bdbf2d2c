import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import type { MemoryStore } from '../../src/memory/types.ts';
import type { TelemetryOptions } from '../../src/telemetry/options.ts';
import { telemetryClientInterceptors } from '../../src/telemetry/temporal-interceptors.ts';
import { createAgentWorker, type AgentDefinition } from '../../src/worker.ts';
import type { Quotas } from '../../src/usage/quotas.ts';
import type { UsageStore } from '../../src/usage/types.ts';
import type { LiveTextChannel } from '../../src/live-text/channel.ts';

export interface TestWorker {
  agents: AgentClient;
  client: Client;
  worker: Worker;
  taskQueue: string;
  memoryStore: MemoryStore;
  /** Stops the worker alone: the client stays connected. */
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

/** A real worker on the shared dev server, on a task queue of its own. */
export async function startTestWorker(
  agents: Record<string, AgentDefinition>,
  opts: {
    memoryStore?: MemoryStore;
    telemetry?: TelemetryOptions;
    usageStore?: UsageStore;
    quotas?: Quotas;
    liveChannel?: LiveTextChannel | false;
    /** Default `default`, the namespace of every test but those that count the server's actions. */
    namespace?: string;
    /** The worker's workflow cache; default createAgentWorker's. */
    maxCachedWorkflows?: number;
  } = {},
): Promise<TestWorker> {
  const address = inject('temporalAddress');
  const taskQueue = `test-${randomUUID()}`;
  const memoryStore = opts.memoryStore ?? new InMemoryMemoryStore();
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await createAgentWorker({
    connection: nativeConnection,
    taskQueue,
    agents,
    memoryStore,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    ...(opts.telemetry ? { telemetry: opts.telemetry } : {}),
    ...(opts.usageStore ? { usageStore: opts.usageStore } : {}),
    ...(opts.quotas ? { quotas: opts.quotas } : {}),
    ...(opts.liveChannel === undefined ? {} : { liveChannel: opts.liveChannel }),
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(opts.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: opts.maxCachedWorkflows }),
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const client = new Client({
    connection,
    interceptors: telemetryClientInterceptors(opts.telemetry),
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
  });
  return {
    agents: new AgentClient({
      client,
      taskQueue,
      ...(opts.usageStore ? { usageStore: opts.usageStore } : {}),
    }),
    client,
    worker,
    taskQueue,
    memoryStore,
    async stopWorker() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** The event types of a run with one tool call and then a final answer. */
export const ONE_TOOL_CALL_RUN = [
  'run_started',
  'step_started',
  'tool_called',
  'tool_completed',
  'step_started',
  'run_completed',
];

/** The event types of a run whose one tool call waited for approval and was approved. */
export const APPROVED_TOOL_CALL_RUN = [
  'run_started',
  'step_started',
  'approval_requested',
  'approval_granted',
  'tool_called',
  'tool_completed',
  'step_started',
  'run_completed',
];

/** Resolves with the first event of `type` a reader sees. */
export async function firstEvent(
  events: AsyncIterable<AgentEvent>,
  type: AgentEvent['type'],
): Promise<AgentEvent> {
  for await (const event of events) if (event.type === type) return event;
  throw new Error(`The run ended without a ${type} event.`);
}

export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** The activity types a history scheduled as normal activities, and how many local activities it recorded. */
export function activitiesIn(events: temporal.api.history.v1.IHistoryEvent[]): {
  scheduled: string[];
  localMarkers: number;
} {
  return {
    scheduled: events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes
        ? [e.activityTaskScheduledEventAttributes.activityType?.name ?? '']
        : [],
    ),
    localMarkers: events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
      .length,
  };
}

/** The whole history as text, every payload's data and metadata decoded from base64, for scanning. */
export async function historyText(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory();
  return JSON.stringify(history, (key, value: unknown) => {
    if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
    if (key === 'data' && typeof value === 'string') return Buffer.from(value, 'base64').toString('utf8');
    return value;
  });
}
