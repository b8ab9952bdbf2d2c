import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { AgentClient } from '../client/agent-client.ts';
import { ControlRefusedError } from '../errors.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { isTerminal, readMessage, STATE } from './parts.ts';
import { A2aPushConfigs } from './push-configs.ts';
import { followTask } from './follow-task.ts';
import { listAgentTasks } from './list-tasks.ts';
import { parseTaskId, sessionIdFor } from './task-ids.ts';
import type { TaskSource } from './task-source.ts';
import { taskSourceOf } from './task-source-of.ts';
import { isTaskOf, taskIdFor } from './task-ids.ts';
import type { A2aServerSdk } from './sdk.ts';

/**
 * The A2A request handler of one agent: `message/send` and `message/stream` start a run (its
 * workflow id derived from the message id, so a message sent twice starts one run) or answer the
 * run's wait for input; `tasks/get`, `tasks/cancel` and `tasks/resubscribe` read and control the run;
 * `tasks/list` lists a context's tasks or the agent's (src/a2a/list-tasks.ts).
 * It keeps no task state: every answer is read from the workflow.
 */
export class A2aAgentHandler implements A2ARequestHandler {
  readonly #agent: string;
  readonly #agents: AgentClient;
  readonly #card: AgentCard;
  readonly #sdk: A2aServerSdk;
  readonly #push: A2aPushConfigs;

  constructor(opts: {
    agent: string;
    agents: AgentClient;
    card: AgentCard;
    sdk: A2aServerSdk;
    credentialStore: CredentialStore | undefined;
  }) {
    this.#agent = opts.agent;
    this.#agents = opts.agents;
    this.#card = opts.card;
    this.#sdk = opts.sdk;
    this.#push = new A2aPushConfigs({ ...opts });
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.#card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new this.#sdk.errors.ExtendedAgentCardNotConfiguredError();
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const { source, afterSeq } = await this.#accept(params, context);
    if (params.configuration?.returnImmediately) return source.read();
    for await (const update of followTask(source, { untilSettled: true, afterSeq })) void update;
    return source.read();
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { source, afterSeq, started } = await this.#accept(params, context);
    if (!started) {
      yield* followTask(source, { afterSeq });
      return;
    }
    // A task this message started: the stream opens with it as submitted.
    const first = await source.read();
    if (first.status?.state === STATE.working) first.status.state = STATE.submitted;
    yield* followTask(source, { afterSeq, first });
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    return (await this.#existing(params.id)).read();
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    const source = await this.#existing(params.id);
    const now = await source.read();
    if (now.status?.state === STATE.canceled) return now;
    // A turn waiting behind another is not running yet: the session's cancel would stop the other.
    if (isTerminal(now.status?.state) || now.status?.state === STATE.submitted) {
      throw new this.#sdk.errors.TaskNotCancelableError(`Task ${params.id} cannot be cancelled now.`);
    }
    try {
      await source.controls.cancel('Cancelled by the A2A client.');
    } catch (error) {
      if (!(error instanceof ControlRefusedError)) throw error;
      throw new this.#sdk.errors.TaskNotCancelableError(
        `Task ${params.id} cannot be cancelled: ${error.message}`,
      );
    }
    for await (const update of followTask(source)) void update; // until it has stopped
    return source.read();
  }

  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse, void, undefined> {
    yield* followTask(await this.#existing(params.id));
  }

  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    await this.#existing(params.taskId);
    return this.#push.create(params, context.tenant);
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    await this.#existing(params.taskId);
    return this.#push.get(params.taskId, params.id);
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    await this.#existing(params.taskId);
    return { configs: await this.#push.list(params.taskId), nextPageToken: '' };
  }

  async deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    await this.#existing(params.taskId);
    await this.#push.delete(params.taskId, params.id, context.tenant);
  }

  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return listAgentTasks(
      this.#agents.client,
      this.#agent,
      params,
      context.tenant || undefined,
      (message) => new this.#sdk.errors.RequestMalformedError(message),
    );
  }

  /**
   * A message either starts a task (no `taskId`): a run, or in the client's context a turn of the
   * context's chat session; or it answers the wait of the task it names. Returns the task and the
   * seq after which its updates are news to this request.
   */
  async #accept(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<{ source: TaskSource; afterSeq: number; started: boolean }> {
    const message = params.message;
    if (!message?.messageId)
      throw new this.#sdk.errors.RequestMalformedError('The message needs a messageId.');
    if (message.taskId) {
      const source = await this.#existing(message.taskId);
      const afterSeq = await source.lastSeq();
      await this.#answer(source, message);
      return { source, afterSeq, started: false };
    }
    const { text, data } = readMessage(message);
    const prompt = text || (data.length ? JSON.stringify(data.length === 1 ? data[0] : data) : '');
    if (!prompt) throw new this.#sdk.errors.RequestMalformedError('The message has no text or data part.');
    const contextId = message.contextId || undefined;
    const taskId = taskIdFor(this.#agent, message.messageId, contextId);
    const source = taskSourceOf(this.#agents.client, taskId);
    const push = params.configuration?.taskPushNotificationConfig;
    const tenant = context.tenant ? { tenant: context.tenant } : {};
    if (contextId) {
      const { context: key, message: turnId } = parseTaskId(taskId)!;
      const session = this.#agents.chatSession(this.#agent, {
        sessionId: sessionIdFor(this.#agent, key!),
        ...tenant,
      });
      // A turn per message id: the same message again is the same turn (`duplicate`).
      const { duplicate } = await session.deliver(prompt, { messageId: turnId });
      if (!duplicate && push?.url) await this.#push.create({ ...push, taskId }, context.tenant);
      return { source, afterSeq: 0, started: !duplicate };
    }
    const workflowId = taskId;
    try {
      await this.#agents.startRun<undefined>(this.#agent, prompt, { workflowId, once: true, ...tenant });
      if (push?.url) await this.#push.create({ ...push, taskId }, context.tenant);
      return { source, afterSeq: 0, started: true };
    } catch (error) {
      // The same message again: the task it started already.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      return { source, afterSeq: 0, started: false };
    }
  }

  /**
   * A client's answer to a task that waits for input: "approve" (or a data part
   * `{ decision: 'approve' }`) lets the waiting tool calls run, "reject: <reason>" declines them,
   * "cancel" stops the task. A decision that was already taken (the same message again) changes nothing.
   */
  async #answer(source: TaskSource, message: Message): Promise<void> {
    const now = await source.read();
    if (isTerminal(now.status?.state)) {
      throw new this.#sdk.errors.UnsupportedOperationError(
        `Task ${source.taskId} has ended: send a new message without taskId for a new task.`,
      );
    }
    const run = source.controls;
    const answer = parseAnswer(message);
    if (!answer) {
      throw new this.#sdk.errors.RequestMalformedError(
        'Answer a task that waits for input with "approve", "reject: <reason>" or "cancel" ' +
          '(or a data part { decision, call_id?, reason? }).',
      );
    }
    if (answer.decision === 'cancel') {
      // A queued turn is not running: the session's cancel would stop the turn that is.
      if (now.status?.state !== STATE.submitted) {
        await run.cancel('Cancelled by the A2A client.').catch(refusedIsDone);
      }
      return;
    }
    if (now.status?.state !== STATE.inputRequired) return; // decided already: the same answer again
    const pending = (await run.pendingApprovals()).filter(
      (call) => answer.callId === undefined || call.call_id === answer.callId,
    );
    for (const call of pending) {
      const decided =
        answer.decision === 'approve'
          ? run.approve(call.call_id)
          : run.reject(call.call_id, answer.reason ?? 'Rejected by the A2A client.');
      await decided.catch(refusedIsDone);
    }
  }

  /** The task an id names, when it is a task of this agent. */
  async #existing(taskId: string): Promise<TaskSource> {
    const source = taskSourceOf(this.#agents.client, taskId);
    if (!isTaskOf(this.#agent, taskId) || !(await source.exists())) {
      throw new this.#sdk.errors.TaskNotFoundError(`No task ${taskId} of agent "${this.#agent}".`);
    }
    return source;
  }
}

/** A decision someone (or this same message, sent before) already took. */
function refusedIsDone(error: unknown): void {
  if (!(error instanceof ControlRefusedError)) throw error;
}

interface Answer {
  decision: 'approve' | 'reject' | 'cancel';
  callId?: string;
  reason?: string;
}

function parseAnswer(message: Message): Answer | undefined {
  const { text, data } = readMessage(message);
  for (const value of data) {
    const { decision, call_id, reason } = (value ?? {}) as Record<string, unknown>;
    if (decision === 'approve' || decision === 'reject' || decision === 'cancel') {
      return {
        decision,
        ...(typeof call_id === 'string' ? { callId: call_id } : {}),
        ...(typeof reason === 'string' ? { reason } : {}),
      };
    }
  }
  const words = /^\s*(approve|approved|yes|ok|reject|rejected|no|deny|cancel)\b[\s:,.-]*([\s\S]*)$/i.exec(
    text,
  );
  if (!words) return undefined;
  const word = words[1]!.toLowerCase();
  if (word === 'cancel') return { decision: 'cancel' };
  if (['approve', 'approved', 'yes', 'ok'].includes(word)) return { decision: 'approve' };
  return { decision: 'reject', ...(words[2]!.trim() ? { reason: words[2]!.trim() } : {}) };
}
