import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Message, SendMessageRequest, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { AgentDefinition } from '../agent/definition.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { ConfigurationError, UpstreamError } from '../errors.ts';
import type { ModelAdapter, ModelRequest, ModelResponse } from '../models/model-adapter.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../tools/connector-base.ts';
import { isSettled, isTerminal, readMessage, STATE, STATE_NAMES, textPart } from './parts.ts';
import type { RemoteA2aAgent } from './options.ts';
import { loadA2aClientSdk } from './sdk.ts';

const parameters = z.object({
  task: z
    .string()
    .describe('The task, with everything the agent needs to know: it does not see this conversation.'),
});

/**
 * The call of a remote A2A agent: it sends the task as one A2A message whose id comes from the run
 * and the call id (a retried call finds the task its first attempt started, on
 * a server that deduplicates by message id, as `serveA2a` does), then looks at the task until it
 * ends or asks for input. Cancelling the run cancels the remote task.
 */
export class RemoteA2aAgentTool extends BaseConnectorTool<typeof parameters> {
  readonly name: string;
  readonly description: string;
  readonly parameters = parameters;
  readonly #remote: RemoteA2aAgent;

  constructor(remote: RemoteA2aAgent) {
    super(remote.credentialKey ? { credentialKey: remote.credentialKey } : {});
    this.name = REMOTE_CALL_TOOL;
    this.description = `Sends the task to the remote agent at ${remote.url} (over A2A) and answers with its result.`;
    this.#remote = remote;
  }

  async run(context: ToolContext, args: { task: string }): Promise<ToolOutput> {
    const client = await this.#client(context);
    const messageId = createHash('sha256')
      .update(`${context.workflowId}:${context.callId}`)
      .digest('hex')
      .slice(0, 32);
    const request: SendMessageRequest = {
      tenant: '',
      message: {
        messageId,
        contextId: '',
        taskId: '',
        role: 1 as Message['role'],
        parts: [textPart(args.task)],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        returnImmediately: true,
      },
      metadata: undefined,
    };
    // Not aborted with the call: once sent, the answer names the task that a cancellation must stop.
    const sent = await client.sendMessage(request);
    if (!('status' in sent))
      return { text: readMessage(sent).text, metadata: { remote_message_id: sent.messageId } };
    let task = sent;
    // The run was cancelled (or the call timed out): the remote task stops too.
    const cancel = (): void =>
      void client.cancelTask({ tenant: '', id: sent.id, metadata: undefined }).catch(() => undefined);
    if (context.signal.aborted) cancel();
    else context.signal.addEventListener('abort', cancel, { once: true });
    const interval = this.#remote.pollIntervalMs ?? 1_000;
    try {
      while (!isSettled(task.status?.state)) {
        context.heartbeat({ remote_task_id: task.id });
        await sleep(interval, undefined, { signal: context.signal });
        task = await client.getTask({ tenant: '', id: task.id }, { signal: context.signal });
      }
    } finally {
      context.signal.removeEventListener('abort', cancel);
    }
    return toolOutput(task);
  }

  async #client(context: ToolContext): Promise<Client> {
    const sdk = await loadA2aClientSdk();
    const headers: Record<string, string> = {};
    if (this.#remote.credentialKey) {
      const record = await this.getCredential(context);
      context.secrets.add(record.token);
      headers.authorization = `Bearer ${record.token}`;
    }
    const fetchImpl: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers } });
    const factory = new sdk.ClientFactory(
      sdk.ClientFactoryOptions.createFrom(sdk.ClientFactoryOptions.default, {
        transports: [new sdk.JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new sdk.DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    try {
      return await factory.createFromUrl(this.#remote.url);
    } catch (error) {
      throw new UpstreamError(
        `Could not reach the A2A agent at ${this.#remote.url}: ${(error as Error).message}`,
        {
          retryable: true,
          cause: error,
        },
      );
    }
  }
}

/** What the model is told: the answer (artifacts), or what the remote task waits for, or how it ended. */
function toolOutput(task: Task): ToolOutput {
  const state = task.status?.state;
  const metadata = { remote_task_id: task.id, state: STATE_NAMES[state ?? 0] ?? String(state) };
  const status = task.status?.message ? readMessage(task.status.message).text : '';
  if (state === STATE.completed) {
    const parts = task.artifacts.flatMap((artifact) => artifact.parts);
    const text = parts
      .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
      .join('\n')
      .trim();
    const data = parts.flatMap((part) =>
      part.content?.$case === 'data' ? [part.content.value as unknown] : [],
    );
    return {
      text: text || JSON.stringify(data),
      metadata: { ...metadata, ...(data.length ? { data } : {}) },
    };
  }
  if (state === STATE.inputRequired) {
    return { text: `The remote agent needs input to go on (task ${task.id}): ${status}`, metadata };
  }
  if (isTerminal(state)) {
    throw new UpstreamError(`The remote agent's task ${task.id} ended ${metadata.state}: ${status}`, {
      retryable: false,
    });
  }
  return { text: status, metadata };
}

/** The one tool of a remote agent's stand-in: the call of the remote agent. */
const REMOTE_CALL_TOOL = 'a2a_send';

/**
 * The stand-in "model" of a remote agent: it calls {@link RemoteA2aAgentTool} once with its prompt,
 * then answers with what the remote agent answered. Deterministic: no model is asked.
 */
class RemoteA2aRelay implements ModelAdapter {
  readonly specificationVersion = 'toolkit-agent.model.v1';
  readonly modelId = 'a2a-relay';

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') {
      return {
        text: last.isError ? `The remote agent failed: ${last.content}` : last.content,
        toolCalls: [],
      };
    }
    const task = request.messages.findLast((message) => message.role === 'user')?.content ?? '';
    return { text: '', toolCalls: [{ id: 'a2a-send', name: REMOTE_CALL_TOOL, args: { task } }] };
  }
}

const stands = new WeakMap<RemoteA2aAgent, AgentDefinition>();

/**
 * A remote A2A agent (`subAgents: { name: { a2a } }`) as the definition of the sub-agent that stands
 * in for it on this worker: its calls are child runs like any sub-agent's (their events woven into the
 * parent's stream, cancelled with it), each sending one A2A task. The same entry gives the same
 * definition. Its credential is read from the parent's credential store.
 */
export function remoteA2aDefinition(
  where: string,
  remote: RemoteA2aAgent,
  credentialStore: CredentialStore | undefined,
): AgentDefinition {
  const known = stands.get(remote);
  if (known) return known;
  let url: URL;
  try {
    url = new URL(remote.url);
  } catch {
    throw new ConfigurationError(`${where}: \`a2a.url\` is not a URL: ${JSON.stringify(remote.url)}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError(`${where}: \`a2a.url\` must be http(s).`);
  }
  const definition: AgentDefinition = {
    llm: new RemoteA2aRelay(),
    tools: [new RemoteA2aAgentTool(remote)],
    ...(credentialStore ? { credentialStore } : {}),
    maxIterations: 2,
    autoProjectSkills: false,
    liveText: false,
  };
  stands.set(remote, definition);
  return definition;
}
