import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Client } from '@temporalio/client';
import { msToNumber, type Duration, type HistoryAndWorkflowId } from '@temporalio/common';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { encryptionDataConverter } from '../codec/aes-gcm-codec.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import { ConfigurationError } from '../errors.ts';
import { liveEventSinks } from '../live-text/event-sink.ts';
import { workflowSpanSinks } from '../telemetry/workflow-span-sink.ts';
import { agentWorkflowBundle, FAILURE_CONVERTER_PATH } from '../workflow-bundle.ts';

/** Every workflow type the agent worker runs (what src/workflows/index.ts exports). */
export const AGENT_WORKFLOW_TYPES = [
  'agentRun',
  'chatSession',
  'deepAgentRun',
  'sessionMessage',
  'agentPoller',
  'a2aPushNotifications',
] as const;

/** Where the histories to replay come from: a server (`client`) or a folder of saved histories (`dir`). */
export interface ReplayHistoriesOptions {
  /** Download histories from this client's namespace: the newest of each workflow type. */
  client?: Client;
  /** Only workflows started since then: a date or a duration back from now (`'24h'`, `'7d'`). Default 7 days. */
  since?: Date | Duration;
  /** At most this many histories of each workflow type, newest first. Default 20. */
  limit?: number;
  /** A visibility query the downloaded workflows must also match, e.g. `TaskQueue = 'agents'`. */
  query?: string;
  /**
   * Replay the `.json` files of this folder instead: one history each, as `temporal workflow show
   * --output json` or the Temporal UI's download writes it.
   */
  dir?: string;
  /** The workflow code to replay with. Default: this package's workflows, as `createAgentWorker` runs them. */
  workflowBundle?: WorkflowBundleOption;
  /** The payload keys the workers use (see `createAgentWorker`); default `TOOLKIT_PAYLOAD_KEYS`. */
  encryption?: PayloadEncryptionOptions;
}

/** A history the current workflow code does not replay: that workflow would break on this build. */
export interface ReplayFailure {
  workflowId: string;
  runId: string;
  workflowType: string;
  /** Temporal's reason, e.g. `[TMPRL1100] Nondeterminism error: ...`. */
  reason: string;
}

export interface ReplayReport {
  /** How many histories were replayed, by workflow type. */
  replayed: Record<string, number>;
  failures: ReplayFailure[];
}

/**
 * Replays recent histories of every agent workflow (runs, chat sessions, sub-agent and deep runs,
 * session messages, pollers) against the current workflow code with Temporal's
 * `Worker.runReplayHistories`, and reports each one that would fail with a nondeterminism error:
 * the check to run before deploying a changed worker (docs/production.md, "Deploying a new version").
 *
 * @example
 * const { failures } = await replayHistories({ client, since: '24h' });
 * if (failures.length) throw new Error(failures.map((f) => `${f.workflowId}: ${f.reason}`).join('\n'));
 */
export async function replayHistories(options: ReplayHistoriesOptions): Promise<ReplayReport> {
  if (Boolean(options.client) === Boolean(options.dir)) {
    throw new ConfigurationError(
      'replayHistories: give either `client` (download histories) or `dir` (saved histories).',
    );
  }
  const types = new Map<string, string>();
  const histories = options.dir
    ? savedHistories(options.dir, types)
    : downloaded(options.client!, { ...options, ...checkedWindow(options) }, types);
  const dataConverter = encryptionDataConverter(options.encryption);
  const results = Worker.runReplayHistories(
    {
      // Failures as the workers that wrote the histories convert them: encoded when encrypted.
      workflowBundle:
        options.workflowBundle ??
        (await agentWorkflowBundle({ tracing: false, encodeFailures: dataConverter !== undefined })),
      ...(dataConverter
        ? { dataConverter: { ...dataConverter, failureConverterPath: FAILURE_CONVERTER_PATH } }
        : {}),
      replayName: 'toolkit-agent-replay',
      // A traced bundle's span sink and the events sink, dropping: a replay exports nothing.
      sinks: { ...workflowSpanSinks(undefined, () => undefined), ...liveEventSinks(undefined) },
    },
    histories,
  );
  const report: ReplayReport = { replayed: {}, failures: [] };
  for await (const { workflowId, runId, error } of results) {
    const workflowType = types.get(workflowId) ?? 'unknown';
    report.replayed[workflowType] = (report.replayed[workflowType] ?? 0) + 1;
    if (error) report.failures.push({ workflowId, runId, workflowType, reason: error.message });
  }
  return report;
}

/** `limit` (default 20) and `since` (default 7 days) checked, `since` as a date. */
function checkedWindow(options: ReplayHistoriesOptions): { limit: number; since: Date } {
  const limit = options.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ConfigurationError(
      `replayHistories: \`limit\` must be a whole number of at least 1; got ${String(limit)}.`,
    );
  }
  const since = options.since ?? '7d';
  if (since instanceof Date) return { limit, since };
  try {
    return { limit, since: new Date(Date.now() - msToNumber(since)) };
  } catch (error) {
    throw new ConfigurationError(
      `replayHistories: \`since\` must be a date or a duration such as '24h' or '7d'; got ${String(since)}.`,
      { cause: error },
    );
  }
}

/** The newest `limit` histories of each agent workflow type started since `since`, recording each one's type. */
async function* downloaded(
  client: Client,
  { limit, since, query }: { limit: number; since: Date; query?: string },
  types: Map<string, string>,
): AsyncIterable<HistoryAndWorkflowId> {
  for (const type of AGENT_WORKFLOW_TYPES) {
    const filter =
      `WorkflowType = '${type}' AND StartTime > '${since.toISOString()}'` + (query ? ` AND (${query})` : '');
    let taken = 0;
    for await (const entry of client.workflow.list({ query: filter, pageSize: limit }).intoHistories()) {
      types.set(entry.workflowId, type);
      yield entry;
      if (++taken >= limit) break;
    }
  }
}

/** The histories saved in `dir` (`*.json`), named by the workflow id their first event records (else the file name). */
async function* savedHistories(dir: string, types: Map<string, string>): AsyncIterable<HistoryAndWorkflowId> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    throw new ConfigurationError(
      `replayHistories: cannot read the folder ${dir}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  for (const file of files) {
    const path = join(dir, file);
    let history: { events?: Array<{ workflowExecutionStartedEventAttributes?: StartedAttributes }> };
    try {
      history = JSON.parse(await readFile(path, 'utf8')) as typeof history;
    } catch (error) {
      throw new ConfigurationError(
        `replayHistories: ${path} is not a JSON history: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    if (!started) {
      throw new ConfigurationError(
        `replayHistories: ${path} does not start with a WorkflowExecutionStarted event; save histories with \`temporal workflow show --output json\`.`,
      );
    }
    const workflowId = started.workflowId || basename(file, '.json');
    types.set(workflowId, started.workflowType?.name ?? 'unknown');
    yield { workflowId, history };
  }
}

interface StartedAttributes {
  workflowId?: string;
  workflowType?: { name?: string };
}
