import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { AgentClient, AgentRunHandle } from '../client/agent-client.ts';
import { ControlRefusedError } from '../errors.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { isTerminal, readMessage, STATE } from './parts.ts';
import { A2aPushConfigs } from './push-configs.ts';
import { exists, followTask, lastSeq, readTask } from './run-task.ts';
import { isTaskOf, taskIdFor } from './task-ids.ts';
import type { A2aServerSdk } from './sdk.ts';

/**
 * The A2A request handler of one agent: `message/send` and `message/stream` start a run (its
 * workflow id derived from the message id, so a message sent twice starts one run) or answer the
 * run's wait for input; `tasks/get`, `tasks/cancel` and `tasks/resubscribe` read and control the run.
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
    const { run, afterSeq } = await this.#accept(params, context);
    if (params.configuration?.returnImmediately) return readTask(run);
    for await (const update of followTask(run, { untilSettled: true, afterSeq })) void update;
    return readTask(run);
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { run, afterSeq, started } = await this.#accept(params, context);
    if (!started) {
      yield* followTask(run, { afterSeq });
      return;
    }
    // A run this message started: the stream opens with the task as submitted.
    const first = await readTask(run);
    if (first.status?.state === STATE.working) first.status.state = STATE.submitted;
    yield* followTask(run, { afterSeq, first });
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    return readTask(await this.#existing(params.id));
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    const run = await this.#existing(params.id);
    try {
      await run.cancel('Cancelled by the A2A client.');
    } catch (error) {
      if (!(error instanceof ControlRefusedError)) throw error;
      const now = await readTask(run);
      if (now.status?.state === STATE.canceled) return now;
      throw new this.#sdk.errors.TaskNotCancelableError(
        `Task ${params.id} cannot be cancelled: ${error.message}`,
      );
    }
    await run.result().catch(() => undefined);
    return readTask(run);
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

  async listTasks(): Promise<ListTasksResponse> {
    throw new this.#sdk.errors.UnsupportedOperationError('tasks/list is not served: fetch a task by its id.');
  }

  /**
   * A message either starts a run (no `taskId`) or answers the wait of the run it names. Returns the
   * run and the seq after which its updates are news to this request.
   */
  async #accept(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<{ run: AgentRunHandle<unknown>; afterSeq: number; started: boolean }> {
    const message = params.message;
    if (!message?.messageId)
      throw new this.#sdk.errors.RequestMalformedError('The message needs a messageId.');
    if (message.taskId) {
      const run = await this.#existing(message.taskId);
      const afterSeq = await lastSeq(run);
      await this.#answer(run, message);
      return { run, afterSeq, started: false };
    }
    const { text, data } = readMessage(message);
    const prompt = text || (data.length ? JSON.stringify(data.length === 1 ? data[0] : data) : '');
    if (!prompt) throw new this.#sdk.errors.RequestMalformedError('The message has no text or data part.');
    const workflowId = taskIdFor(this.#agent, message.messageId, message.contextId || undefined);
    try {
      const run = await this.#agents.startRun<undefined>(this.#agent, prompt, {
        workflowId,
        once: true,
        ...(context.tenant ? { tenant: context.tenant } : {}),
      });
      const push = params.configuration?.taskPushNotificationConfig;
      if (push?.url) await this.#push.create({ ...push, taskId: workflowId }, context.tenant);
      return { run, afterSeq: 0, started: true };
    } catch (error) {
      // The same message again: the task it started already.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      return { run: this.#agents.getHandle<unknown>(workflowId), afterSeq: 0, started: false };
    }
  }

  /**
   * A client's answer to a task that waits for input: "approve" (or a data part
   * `{ decision: 'approve' }`) lets the waiting tool calls run, "reject: <reason>" declines them,
   * "cancel" stops the task. A decision that was already taken (the same message again) changes nothing.
   */
  async #answer(run: AgentRunHandle<unknown>, message: Message): Promise<void> {
    const now = await readTask(run);
    if (isTerminal(now.status?.state)) {
      throw new this.#sdk.errors.UnsupportedOperationError(
        `Task ${run.workflowId} has ended: send a new message without taskId for a new task.`,
      );
    }
    const answer = parseAnswer(message);
    if (!answer) {
      throw new this.#sdk.errors.RequestMalformedError(
        'Answer a task that waits for input with "approve", "reject: <reason>" or "cancel" ' +
          '(or a data part { decision, call_id?, reason? }).',
      );
    }
    if (answer.decision === 'cancel') {
      await run.cancel('Cancelled by the A2A client.').catch(refusedIsDone);
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

  /** The run a task id names, when it is a task of this agent. */
  async #existing(taskId: string): Promise<AgentRunHandle<unknown>> {
    const run = this.#agents.getHandle<unknown>(taskId);
    if (!isTaskOf(this.#agent, taskId) || !(await exists(run))) {
      throw new this.#sdk.errors.TaskNotFoundError(`No task ${taskId} of agent "${this.#agent}".`);
    }
    return run;
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
