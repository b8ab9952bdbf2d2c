import { runPriority } from '../fairness/priority.ts';
import type { FairnessOptions } from '../fairness/types.ts';
import type { Client } from '@temporalio/client';
import { POLLER_WORKFLOW_PREFIX, type PollerInput, type PollSourceName } from '../common/poller.ts';
import { ConfigurationError } from '../errors.ts';
import { agentMemo } from '../visibility/search-attributes.ts';
import { pollerStateQuery } from '../common/workflow-definitions.ts';
import type { agentPoller } from '../workflows/index.ts';

/** A poller: which source, read with which credential, how often, and what each new item starts. */
export interface AgentPollerOptions {
  source: PollSourceName;
  /** The credential record the source is read with (Gmail: an OAuth record with gmail.readonly; Linear: an API key or token). */
  credentialKey: string;
  /** How often to poll: milliseconds, at least 1,000. */
  every: number;
  /** Start a run of `agent` per new item. `prompt` is a template: `{{title}}`, `{{text}}`, `{{url}}`, `{{id}}`, `{{from}}` (Gmail), `{{identifier}}` (Linear). */
  run?: { agent: string; prompt?: string };
  /** Send each new item into the chat session `id` (a template too, e.g. `'linear-{{identifier}}'`) instead. */
  session?: { agent: string; id: string; prompt?: string };
  tenant?: string;
}

/** A running poller as {@link AgentPollers.list} gives it. */
export interface AgentPollerInfo {
  id: string;
  source: PollSourceName;
  agent: string;
  workflowId: string;
  /** From the poller itself (needs a worker to answer): polls so far in this run, items started, the last error. */
  state?: { polls: number; started: number; lastError: string | undefined };
}

/**
 * Pollers for sources without push (`AgentClient.pollers`): each is a long-lived workflow on this
 * client's task queue that polls on a durable timer, keeps its cursor in workflow state, and starts
 * one run (or chat message) per new item, each at most once, across worker crashes and restarts.
 *
 * @example
 * await agents.pollers.start('inbox', { source: 'gmail', credentialKey: 'mail', every: 60_000, run: { agent: 'sorter', prompt: 'Sort this mail: {{title}} from {{from}}' } });
 */
export class AgentPollers {
  readonly #client: Client;
  readonly #taskQueue: string;
  readonly #fairness: FairnessOptions | undefined;

  constructor(client: Client, taskQueue: string, fairness?: FairnessOptions) {
    this.#client = client;
    this.#taskQueue = taskQueue;
    this.#fairness = fairness;
  }

  /** Starts the poller; an id that is already polling is refused (WorkflowExecutionAlreadyStartedError). */
  async start(id: string, options: AgentPollerOptions): Promise<{ workflowId: string }> {
    const input = pollerInput(id, options);
    const workflowId = `${POLLER_WORKFLOW_PREFIX}${id}`;
    // The poller's tasks and the runs it starts (child workflows inherit it) carry its tenant's fairness key.
    const priority = runPriority(input.tenant, this.#fairness, undefined);
    await this.#client.workflow.start<typeof agentPoller>('agentPoller', {
      taskQueue: this.#taskQueue,
      workflowId,
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
      ...(priority ? { priority } : {}),
      memo: { ...agentMemo(input.agent, input.tenant), poller: id, source: input.source },
      staticSummary: `${input.source} poller ${id} → ${input.session ? 'session' : 'runs'} of ${input.agent}`,
    });
    return { workflowId };
  }

  /** Stops the poller (Temporal's cancellation; runs it started go on). */
  async stop(id: string): Promise<void> {
    await this.#client.workflow.getHandle(`${POLLER_WORKFLOW_PREFIX}${id}`).cancel();
  }

  /** The running pollers of this task queue (through visibility, so one started a moment ago may be missing). */
  async list(): Promise<AgentPollerInfo[]> {
    const found: AgentPollerInfo[] = [];
    const query = `WorkflowType = 'agentPoller' AND TaskQueue = '${this.#taskQueue}' AND ExecutionStatus = 'Running'`;
    for await (const execution of this.#client.workflow.list({ query })) {
      const memo = (execution.memo ?? {}) as { poller?: string; source?: PollSourceName; agent?: string };
      const info: AgentPollerInfo = {
        id: memo.poller ?? execution.workflowId.slice(POLLER_WORKFLOW_PREFIX.length),
        source: memo.source ?? 'gmail',
        agent: memo.agent ?? '',
        workflowId: execution.workflowId,
      };
      const state = await this.#client.workflow
        .getHandle(execution.workflowId)
        .query(pollerStateQuery)
        .catch(() => undefined);
      found.push(state ? { ...info, state } : info);
    }
    return found;
  }
}

function pollerInput(id: string, options: AgentPollerOptions): PollerInput {
  if (!/^[\w.:-]{1,150}$/.test(id ?? '')) {
    throw new ConfigurationError('A poller id is 1-150 letters, digits, or . _ : - characters.');
  }
  const where = `Poller "${id}"`;
  if (options.source !== 'gmail' && options.source !== 'linear') {
    throw new ConfigurationError(
      `${where}: source must be 'gmail' or 'linear' (got ${String(options.source)}).`,
    );
  }
  if (typeof options.every !== 'number' || !(options.every >= 1000)) {
    throw new ConfigurationError(`${where}: every must be at least 1,000 ms (got ${String(options.every)}).`);
  }
  if (!options.credentialKey)
    throw new ConfigurationError(`${where}: credentialKey names the record to poll with.`);
  const target = options.run ?? options.session;
  if (!target || (options.run && options.session)) {
    throw new ConfigurationError(
      `${where}: give either run (start a run per item) or session (send into a chat session).`,
    );
  }
  return {
    pollerId: id,
    source: options.source,
    credentialKey: options.credentialKey,
    agent: target.agent,
    everyMs: options.every,
    ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
    ...(options.run ? { run: { ...(options.run.prompt ? { prompt: options.run.prompt } : {}) } } : {}),
    ...(options.session
      ? {
          session: {
            id: options.session.id,
            ...(options.session.prompt ? { prompt: options.session.prompt } : {}),
          },
        }
      : {}),
  };
}
