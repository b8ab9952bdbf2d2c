import { checkCaching } from '../caching/check.ts';
import type { GuardrailSelection } from '../guardrails/recorded.ts';
import type { CachingOption } from '../caching/options.ts';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/common';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import {
  chatWorkflowId,
  type ChatSessionInput,
  type ChatTurnResult,
  type SendInput,
} from '../common/chat.ts';
import { deliverUpdate, sendUpdate, sessionStateQuery } from '../common/workflow-definitions.ts';
import type { chatSession } from '../workflows/index.ts';
import type { AgentEvent } from '../common/events.ts';
import { ConfigurationError, RunFailedError } from '../errors.ts';
import { quotaExceededIn } from '../usage/refusal.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { Skill } from '../skills/skill.ts';
import type { RunLimits } from '../common/control.ts';
import { childEventsOf, withChildEvents } from '../subagents/child-events.ts';
import { resolveLiveChannel, type LiveTextChannel } from '../live-text/channel.ts';
import { streamRunEvents } from './event-stream.ts';
import { ApprovalControls, RunControls } from './run-controls.ts';
import { checkFrontendTools } from '../frontend-tools/check.ts';
import type { FrontendTool } from '../frontend-tools/types.ts';
import { startWithSearchAttributes } from '../visibility/start-with-search-attributes.ts';
import { resendWhileSessionMoves, restreamWhileSessionMoves } from '../deploy/resend-while-moving.ts';
import { runPriority } from '../fairness/priority.ts';
import type { FairnessOptions } from '../fairness/types.ts';
import { runStartOptions } from '../visibility/start-options.ts';
import { checkedResult } from '../output/result.ts';
import {
  checkOutputRepairs,
  toOutputJsonSchema,
  type OutputSchema,
  type ResultOutput,
} from '../output/schema.ts';

/** Per-turn options of `send` and `stream`. */
export interface SendOptions {
  /** Refuse the send unless it would be this turn of the session. */
  expectedTurn?: number;
  /**
   * An id for this message from the outside world (a webhook's event or delivery id): the session
   * runs a message id at most once. A send with an id it already took is refused (`DuplicateTurn`).
   */
  messageId?: string;
  /** A structured answer for this turn (zod or JSON Schema): `output` is then the parsed object. */
  output?: OutputSchema;
  /** How many times an answer that does not match `output` is sent back. Default: the session's, else 2. */
  outputRepairs?: number;
  /**
   * Tools the client offers for this turn and runs itself (docs/ag-ui.md): a call of one waits in
   * the turn until `sendToolResult` brings its result.
   */
  frontendTools?: FrontendTool[];
}

export interface ChatSessionOptions {
  /** Default: a new random id. Reuse an id to continue a session from any process. */
  sessionId?: string;
  tenant?: string;
  maxIterations?: number;
  skills?: Array<string | Skill>;
  model?: string;
  /** The session ends after this long without a turn (default 7 days); `send` resumes it. */
  idleTimeoutMs?: number;
  /** Where `history()` reads the conversation: the store the workers use. */
  memoryStore?: MemoryStore;
  /** Each turn ends with `stop_reason: 'deadline'` after this long. */
  timeoutMs?: number;
  /** Each turn's budget (`stop_reason: 'budget'`). */
  limits?: RunLimits;
  /** Every turn answers with an object matching this schema, unless `send` names its own. */
  output?: OutputSchema;
  /** Repair steps of each turn's structured answer. Default 2. */
  outputRepairs?: number;
  /** The provider's prompt cache for every turn (docs/caching.md); the agent's `caching` otherwise. */
  caching?: CachingOption;
  /** Which of the agent's guardrails every turn runs, by name (docs/guardrails.md); all of them otherwise. */
  guardrails?: GuardrailSelection;
}

/** Where a session runs: resolved lazily, so an `Agent` can start its embedded server on first use. */
export type ChatTarget = () => Promise<{
  client: Client;
  taskQueue: string;
  agent: string;
  memoryStore?: MemoryStore;
  /** The fairness weights of the client that made the session. */
  fairness?: FairnessOptions | undefined;
  /** Where readers hear the model's text as it is written. Default: this process's; `false`: none. */
  liveChannel?: LiveTextChannel | false;
}>;

/**
 * A conversation that keeps its context between turns (docs/chat.md): a long-running `chatSession`
 * workflow (`chat-<sessionId>`). `send` is an update-with-start, so the first message starts the
 * session and later ones (from any process) join it; turns run one at a time.
 */
export class AgentChatSession extends ApprovalControls {
  readonly sessionId: string;
  readonly #target: ChatTarget;
  readonly #options: ChatSessionOptions;
  protected readonly controls: RunControls;

  constructor(target: ChatTarget, options: ChatSessionOptions = {}) {
    super();
    this.sessionId = options.sessionId ?? randomUUID();
    if (!/^[\w.:-]{1,200}$/.test(this.sessionId)) {
      throw new ConfigurationError('A sessionId is 1-200 letters, digits, or . _ : - characters.');
    }
    this.#target = target;
    this.#options = options;
    this.controls = new RunControls(async () =>
      (await this.#target()).client.workflow.getHandle(this.workflowId),
    );
  }

  /**
   * Stops the turn that is running (the session goes on): like `AgentRunHandle.cancel`, its turn
   * resolves with `stop_reason: 'cancelled'` and its stream ends with `run_cancelled`. Refused when
   * no turn is running.
   */
  cancelTurn(reason?: string): Promise<void> {
    return this.controls.cancel(reason);
  }

  get workflowId(): string {
    return chatWorkflowId(this.sessionId);
  }

  /**
   * One turn: resolves with the answer and the run's metadata once the turn is done. With
   * `expectedTurn`, the session refuses the send unless it would be that turn. With `output`, the
   * answer is the parsed object (typed from the schema), or an `OutputValidationError` is thrown.
   */
  async send<S extends OutputSchema | undefined = undefined>(
    prompt: string,
    opts: SendOptions & { output?: S } = {},
  ): Promise<ChatTurnResult<ResultOutput<S>>> {
    const { client, operation, send } = await this.#prepare(prompt, opts);
    let result: ChatTurnResult<unknown>;
    try {
      const { events, ...rest } = await startWithSearchAttributes(client, (withSearchAttributes) =>
        resendWhileSessionMoves(() =>
          client.workflow.executeUpdateWithStart(sendUpdate, {
            args: [send],
            updateId: send.turnId,
            startWorkflowOperation: operation(withSearchAttributes),
          }),
        ),
      );
      result = rest;
    } catch (error) {
      throw this.#failure(error);
    }
    return { ...checkedResult<ResultOutput<S>>(this.workflowId, result), turn: result.turn };
  }

  /** One turn as events, ending with its `run_completed` (`partial_output` events in a structured turn). */
  stream(prompt: string, opts: SendOptions = {}): AsyncGenerator<AgentEvent> {
    return restreamWhileSessionMoves(() => this.#streamOnce(prompt, opts));
  }

  async *#streamOnce(prompt: string, opts: SendOptions): AsyncGenerator<AgentEvent> {
    const { client, operation, send, live } = await this.#prepare(prompt, opts);
    const workflow = client.workflow.getHandle(this.workflowId);
    const afterSeq = await workflow
      .query(sessionStateQuery)
      .then((state) => state.lastEventSeq)
      .catch(() => 0);
    const update = await startWithSearchAttributes(client, (withSearchAttributes) =>
      client.workflow.startUpdateWithStart(sendUpdate, {
        args: [send],
        updateId: send.turnId,
        waitForStage: 'ACCEPTED',
        startWorkflowOperation: operation(withSearchAttributes),
      }),
    ).catch((error: unknown) => {
      throw this.#failure(error);
    });
    const answered = update.result();
    const failed = answered.then(
      () => new Promise<never>(() => undefined),
      (error: unknown) => {
        throw this.#failure(error);
      },
    );
    failed.catch(() => undefined);
    const turn = (from: number) =>
      streamRunEvents(workflow, Math.max(from, afterSeq), {
        include: (event) => event.payload.turn_id === send.turnId,
        abort: failed,
        // The answer carries the turn's events: the reader finishes from it, whichever run it reads.
        tail: answered.then(
          (answer) => answer.events,
          () => undefined,
        ),
        live,
        atStepBoundary: from <= afterSeq,
        liveTags: { turn_id: send.turnId },
      });
    yield* withChildEvents(turn, childEventsOf(workflow, live));
  }

  /**
   * The turn that runs now (or waits for an approval), read from its first event as it goes on: its
   * `turnId` and `events`, which end with its `run_completed` / `run_cancelled`. `undefined` when
   * no turn runs. Any number of readers may join a turn, each reads it whole (a page that reloads).
   */
  async runningTurn(): Promise<{ turnId: string; events: AsyncGenerator<AgentEvent> } | undefined> {
    const target = await this.#target();
    const live = resolveLiveChannel(target.liveChannel, 'The chat session');
    const workflow = target.client.workflow.getHandle(this.workflowId);
    const state = await workflow.query(sessionStateQuery).catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    });
    const running = state?.running;
    if (!running) return undefined;
    const turn = (from: number) =>
      streamRunEvents(workflow, Math.max(from, running.after_seq), {
        include: (event) => event.payload.turn_id === running.turn_id,
        live,
        atStepBoundary: from <= running.after_seq,
        liveTags: { turn_id: running.turn_id },
      });
    return { turnId: running.turn_id, events: withChildEvents(turn, childEventsOf(workflow, live)) };
  }

  /**
   * Hands the session a message from the outside world (a webhook delivery) and returns once the
   * session has taken it, without waiting for the answer: a turn runs for it. With `messageId` (the
   * provider's event id) it is exactly-once: a message the session already took is not run again
   * (`duplicate: true`), across redeliveries, concurrent deliveries and continue-as-new.
   */
  async deliver(prompt: string, opts: SendOptions & { messageId: string }): Promise<{ duplicate: boolean }> {
    const { client, operation, send } = await this.#prepare(prompt, opts);
    try {
      // A fresh update id: the session answers a duplicate by the message id (Temporal would hand
      // back the first update's answer for a repeated update id, which says nothing of duplicates).
      return await startWithSearchAttributes(client, (withSearchAttributes) =>
        resendWhileSessionMoves(() =>
          client.workflow.executeUpdateWithStart(deliverUpdate, {
            args: [send],
            startWorkflowOperation: operation(withSearchAttributes),
          }),
        ),
      );
    } catch (error) {
      throw this.#failure(error);
    }
  }

  /**
   * The conversation so far: every user, assistant and tool message across turns, in order. In a
   * conversation that was handed off (`transfer_to_<name>`), each answer names its `agent`.
   */
  async history(): Promise<Array<{ role: string; content: string; agent?: string }>> {
    const { memoryStore } = await this.#target();
    const store = this.#options.memoryStore ?? memoryStore;
    if (!store) {
      throw new ConfigurationError(
        'history() reads the memory store the workers use: pass it as `memoryStore`.',
      );
    }
    return (await store.read(this.sessionId))
      .filter((message) => message.role !== 'system')
      .map((message) => {
        // What the user said, without what long-term memory recalled for the model beside it.
        const { recalled: _recalled, ...said } = message as typeof message & { recalled?: string };
        return { ...said, content: message.content };
      });
  }

  async #prepare(prompt: string, opts: SendOptions = {}) {
    const { expectedTurn } = opts;
    const { client, taskQueue, agent, fairness, liveChannel } = await this.#target();
    const input: ChatSessionInput = { agent, sessionId: this.sessionId };
    const { tenant, maxIterations, skills, model, idleTimeoutMs, timeoutMs, limits } = this.#options;
    const caching =
      this.#options.caching === undefined
        ? undefined
        : checkCaching('The chat session', this.#options.caching);
    Object.assign(
      input,
      Object.fromEntries(
        Object.entries({
          tenant,
          maxIterations,
          skills,
          model,
          idleTimeoutMs,
          timeoutMs,
          limits,
          caching,
          guardrails: this.#options.guardrails,
        }).filter(([, v]) => v !== undefined),
      ),
    );
    const ui = runStartOptions({ agent, tenant, kind: 'chat', model });
    const priority = runPriority(tenant, fairness, undefined);
    // An operation is used once: a start retried without search attributes needs a new one.
    const operation = (withSearchAttributes: boolean) =>
      new WithStartWorkflowOperation<typeof chatSession>('chatSession', {
        workflowId: this.workflowId,
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        ...(priority ? { priority } : {}),
        ...ui.options,
        ...(withSearchAttributes ? ui.searchAttributes : {}),
      });
    const output = opts.output ?? this.#options.output;
    const repairs = checkOutputRepairs(opts.outputRepairs ?? this.#options.outputRepairs, 'The chat turn');
    if (opts.messageId !== undefined && !/^[\w.:@/-]{1,200}$/.test(opts.messageId)) {
      throw new ConfigurationError('A messageId is 1-200 letters, digits, or . _ : @ / - characters.');
    }
    const send: SendInput = {
      prompt,
      turnId: opts.messageId ?? randomUUID(),
      ...(expectedTurn === undefined ? {} : { expectedTurn }),
      ...(output === undefined ? {} : { output: toOutputJsonSchema(output, 'The chat turn') }),
      ...(repairs === undefined ? {} : { outputRepairs: repairs }),
      ...(opts.frontendTools?.length
        ? { frontendTools: checkFrontendTools(opts.frontendTools, 'The chat turn') }
        : {}),
    };
    return { client, operation, send, live: resolveLiveChannel(liveChannel, 'The chat session') };
  }

  #failure(error: unknown): unknown {
    if (!(error instanceof WorkflowUpdateFailedError)) return error;
    // A turn its tenant's quota refused: the session goes on, the caller may send again later.
    const quota = quotaExceededIn(error, this.workflowId);
    if (quota) return quota;
    let root: unknown = error;
    while (root instanceof Error && root.cause instanceof Error) root = root.cause;
    return new RunFailedError(this.workflowId, root instanceof Error ? root.message : String(root), {
      cause: error,
    });
  }
}
