import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Message, SendMessageRequest, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { ConfigurationError, UpstreamError } from '../errors.ts';
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
 * A remote A2A agent as the tool `agent_<name>`: a call sends the task as one A2A message whose id
 * comes from the run and the call id (a retried call finds the task its first attempt started, on
 * a server that deduplicates by message id, as `serveA2a` does), then looks at the task until it
 * ends or asks for input. Cancelling the run cancels the remote task.
 */
export class RemoteA2aAgentTool extends BaseConnectorTool<typeof parameters> {
  readonly name: string;
  readonly description: string;
  readonly parameters = parameters;
  readonly #remote: RemoteA2aAgent;

  constructor(name: string, remote: RemoteA2aAgent, description: string | undefined) {
    super(remote.credentialKey ? { credentialKey: remote.credentialKey } : {});
    this.name = `agent_${name}`;
    this.description =
      description ??
      `Delegates a task to the remote "${name}" agent (over A2A), which works on it with its own tools and answers with its result.`;
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

/** The `agent_<name>` tools of an agent's remote A2A sub-agents, checked when the worker starts. */
export function remoteA2aAgentTools(
  agent: string,
  subAgents: Record<string, unknown> | undefined,
): RemoteA2aAgentTool[] {
  const tools: RemoteA2aAgentTool[] = [];
  for (const [name, entry] of Object.entries(subAgents ?? {})) {
    const spec = entry as { a2a?: RemoteA2aAgent; description?: string } | string | undefined;
    if (typeof spec !== 'object' || !spec?.a2a) continue;
    const where = `Agent "${agent}", sub-agent "${name}"`;
    let url: URL;
    try {
      url = new URL(spec.a2a.url);
    } catch {
      throw new ConfigurationError(`${where}: \`a2a.url\` is not a URL: ${JSON.stringify(spec.a2a.url)}.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ConfigurationError(`${where}: \`a2a.url\` must be http(s).`);
    }
    tools.push(new RemoteA2aAgentTool(name, spec.a2a, spec.description));
  }
  return tools;
}
