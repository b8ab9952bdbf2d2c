import type {
  Client,
  ScheduleOptionsAction,
  ScheduleOptionsStartWorkflowAction,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import type { ChatSessionInput, SessionMessageInput } from '../common/chat.ts';
import type { AgentRunInput } from '../common/run.ts';
import { chatWorkflowId } from '../common/chat.ts';
import { ConfigurationError } from '../errors.ts';
import { runPriority } from '../fairness/priority.ts';
import type { FairnessOptions } from '../fairness/types.ts';
import { runStartOptions } from '../visibility/start-options.ts';
import { startWithSearchAttributes } from '../visibility/start-with-search-attributes.ts';
import type { agentRun, sessionMessage } from '../workflows/index.ts';

/** What happens when a firing comes while the previous one's run is still going. */
export type ScheduleOverlap =
  'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'terminate_other' | 'allow_all';

/** An agent schedule: when, and which run (or chat message) each firing starts. */
export interface AgentScheduleOptions {
  agent: string;
  prompt: string;
  tenant?: string;
  /** Cron expressions (`'0 9 * * MON'`); give `cron` or `every`. */
  cron?: string | string[];
  /** A fixed interval: milliseconds or a duration such as `'1h'`, `'15m'`, `'1 day'`. */
  every?: number | string;
  /** IANA time zone of `cron` (e.g. `'Europe/Berlin'`). Default UTC. */
  timezone?: string;
  /** Default `'skip'`: a firing while the last run still runs starts nothing. */
  overlap?: ScheduleOverlap;
  /** Send the prompt into this chat session (started when needed) instead of starting a run. */
  session?: string;
  /** Create it paused. */
  paused?: boolean;
  /** A note shown with the schedule (why it exists, why it is paused). */
  note?: string;
}

/** A schedule as {@link AgentSchedules.list} and `describe` give it. */
export interface AgentScheduleInfo {
  id: string;
  agent: string;
  tenant: string | undefined;
  session: string | undefined;
  paused: boolean;
  note: string | undefined;
  /** When it fires next (up to 5). */
  nextFireTimes: Date[];
  /** The workflows the latest firings started. */
  recentRuns: Array<{ workflowId: string; at: Date }>;
}

const MEMO_AGENT = 'toolkitScheduleAgent';

/**
 * Agent runs on Temporal Schedules (`AgentClient.schedules`): each firing starts a run of `agent`
 * with `prompt` on this client's task queue, or sends it into a chat session. Temporal keeps the
 * schedule (its spec, overlap policy, pause state and recent firings) and fires it with no worker
 * involved; pausing, triggering and deleting go through the server too.
 *
 * @example
 * await agents.schedules.create('weekly-digest', { agent: 'digest', prompt: 'Post the digest', cron: '0 9 * * MON', timezone: 'Europe/Berlin' });
 */
export class AgentSchedules {
  readonly #client: Client;
  readonly #taskQueue: string;
  readonly #fairness: FairnessOptions | undefined;

  constructor(client: Client, taskQueue: string, fairness?: FairnessOptions) {
    this.#client = client;
    this.#taskQueue = taskQueue;
    this.#fairness = fairness;
  }

  /** Creates the schedule; an id that exists already is refused (Temporal's `ScheduleAlreadyRunning`). */
  async create(id: string, options: AgentScheduleOptions): Promise<void> {
    checkId(id);
    const spec = scheduleSpec(id, options);
    const ui = runStartOptions({
      agent: options.agent,
      tenant: options.tenant,
      kind: options.session ? 'chat' : 'run',
    });
    await startWithSearchAttributes(this.#client, (withSearchAttributes) =>
      this.#client.schedule.create({
        scheduleId: id,
        spec,
        action: this.#action(id, options, withSearchAttributes ? ui.searchAttributes : {}, ui.options),
        policies: { overlap: overlapPolicy(options.overlap) },
        state: { paused: options.paused ?? false, ...(options.note ? { note: options.note } : {}) },
        memo: {
          [MEMO_AGENT]: options.agent,
          ...(options.tenant ? { toolkitScheduleTenant: options.tenant } : {}),
        },
      }),
    );
  }

  /** This task queue's agent schedules (schedules of other task queues and other kinds are left out). */
  async list(): Promise<AgentScheduleInfo[]> {
    const ids: string[] = [];
    for await (const summary of this.#client.schedule.list()) {
      if (summary.memo?.[MEMO_AGENT] !== undefined) ids.push(summary.scheduleId);
    }
    const described = await Promise.all(ids.map((id) => this.describe(id).catch(() => undefined)));
    return described.filter((info): info is AgentScheduleInfo => info !== undefined);
  }

  async describe(id: string): Promise<AgentScheduleInfo> {
    const description = await this.#client.schedule.getHandle(id).describe();
    const agent = description.memo?.[MEMO_AGENT];
    if (typeof agent !== 'string' || description.action.taskQueue !== this.#taskQueue) {
      throw new ConfigurationError(
        `Schedule "${id}" is not an agent schedule of task queue ${this.#taskQueue}.`,
      );
    }
    const [first] = description.action.args as [AgentRunInput | SessionMessageInput];
    const session = first && 'session' in first ? first.session.sessionId : undefined;
    const tenant = description.memo?.toolkitScheduleTenant;
    return {
      id,
      agent,
      tenant: typeof tenant === 'string' ? tenant : undefined,
      session,
      paused: description.state.paused,
      note: description.state.note || undefined,
      nextFireTimes: description.info.nextActionTimes.slice(0, 5),
      recentRuns: description.info.recentActions.map((action) => ({
        workflowId: action.action.workflow.workflowId,
        at: action.takenAt,
      })),
    };
  }

  pause(id: string, note = 'Paused with toolkit-agent'): Promise<void> {
    return this.#client.schedule.getHandle(id).pause(note);
  }

  unpause(id: string, note = 'Unpaused with toolkit-agent'): Promise<void> {
    return this.#client.schedule.getHandle(id).unpause(note);
  }

  /** Fires it now (the overlap policy applies), whatever its spec and pause state say. */
  trigger(id: string): Promise<void> {
    return this.#client.schedule.getHandle(id).trigger();
  }

  delete(id: string): Promise<void> {
    return this.#client.schedule.getHandle(id).delete();
  }

  #action(
    id: string,
    options: AgentScheduleOptions,
    searchAttributes: {
      typedSearchAttributes?: ReturnType<typeof runStartOptions>['searchAttributes']['typedSearchAttributes'];
    },
    ui: ReturnType<typeof runStartOptions>['options'],
  ): ScheduleOptionsAction {
    // The runs a schedule starts carry its tenant as their fairness key, as a client's runs do.
    const priority = runPriority(options.tenant, this.#fairness, undefined);
    if (options.session) {
      const session: ChatSessionInput = {
        agent: options.agent,
        sessionId: options.session,
        ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
      };
      chatWorkflowId(options.session); // a session id the chat sessions would refuse fails here
      return {
        type: 'startWorkflow',
        workflowType: 'sessionMessage',
        workflowId: `schedule-${id}`,
        taskQueue: this.#taskQueue,
        args: [{ session, prompt: options.prompt } satisfies SessionMessageInput],
        memo: ui.memo,
        staticSummary: `${options.agent} schedule ${id} → session ${options.session}`,
        ...(priority ? { priority } : {}),
      } satisfies ScheduleOptionsStartWorkflowAction<typeof sessionMessage>;
    }
    const input: AgentRunInput = {
      agent: options.agent,
      prompt: options.prompt,
      ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
    };
    return {
      type: 'startWorkflow',
      workflowType: 'agentRun',
      workflowId: `schedule-${id}`,
      taskQueue: this.#taskQueue,
      args: [input],
      ...(priority ? { priority } : {}),
      ...ui,
      ...searchAttributes,
    } satisfies ScheduleOptionsStartWorkflowAction<typeof agentRun>;
  }
}

function scheduleSpec(id: string, options: AgentScheduleOptions) {
  const cron = options.cron === undefined ? [] : [options.cron].flat();
  if (cron.length > 0 === (options.every !== undefined)) {
    throw new ConfigurationError(`Schedule "${id}": give either cron or every.`);
  }
  if (typeof options.prompt !== 'string' || options.prompt.trim() === '') {
    throw new ConfigurationError(`Schedule "${id}": the prompt must be a non-empty string.`);
  }
  if (typeof options.every === 'number' && !(options.every >= 1000)) {
    throw new ConfigurationError(
      `Schedule "${id}": every must be at least 1 second (got ${options.every} ms).`,
    );
  }
  return {
    ...(cron.length ? { cronExpressions: cron } : {}),
    // Temporal takes milliseconds or an `ms`-style string ('15m', '1 day') here.
    ...(options.every !== undefined ? { intervals: [{ every: options.every as number }] } : {}),
    ...(options.timezone ? { timezone: options.timezone } : {}),
  };
}

function overlapPolicy(overlap: ScheduleOverlap | undefined): ScheduleOverlapPolicy {
  const policy = (overlap ?? 'skip').toUpperCase();
  if (
    !['SKIP', 'BUFFER_ONE', 'BUFFER_ALL', 'CANCEL_OTHER', 'TERMINATE_OTHER', 'ALLOW_ALL'].includes(policy)
  ) {
    throw new ConfigurationError(
      `overlap must be skip, buffer_one, buffer_all, cancel_other, terminate_other or allow_all (got ${String(overlap)}).`,
    );
  }
  return policy as ScheduleOverlapPolicy;
}

function checkId(id: string): void {
  if (!/^[\w.:-]{1,200}$/.test(id ?? '')) {
    throw new ConfigurationError('A schedule id is 1-200 letters, digits, or . _ : - characters.');
  }
}
