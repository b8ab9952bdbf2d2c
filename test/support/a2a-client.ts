import { randomUUID } from 'node:crypto';
import { SendMessageRequest, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { Agent as Dispatcher, fetch as undiciFetch } from 'undici';

/**
 * The `@a2a-js/sdk` client of an agent URL, sending `token` as a bearer token, with connections of
 * its own (a restarted server is reached by a new client, not through a socket the old one closed).
 */
export async function a2aClient(agentUrl: string, token: string): Promise<Client> {
  const dispatcher = new Dispatcher();
  const fetchImpl = ((input: string | URL, init?: RequestInit) => {
    const headers = { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${token}` };
    return undiciFetch(input, { ...(init as object), headers, dispatcher });
  }) as unknown as typeof fetch;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(agentUrl);
}

/** A user's text message, as A2A's JSON writes it (optionally on a task, or returning at once). */
export function userMessage(
  text: string,
  opts: {
    messageId?: string;
    contextId?: string;
    taskId?: string;
    returnImmediately?: boolean;
    push?: { url: string; token: string };
  } = {},
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: opts.messageId ?? randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(opts.taskId ? { taskId: opts.taskId } : {}),
      ...(opts.contextId ? { contextId: opts.contextId } : {}),
    },
    configuration: {
      ...(opts.returnImmediately ? { returnImmediately: true } : {}),
      ...(opts.push ? { taskPushNotificationConfig: opts.push } : {}),
    },
  });
}

/** The text parts of a task's artifacts. */
export function artifactTexts(task: Task): string[] {
  return task.artifacts.flatMap((artifact) =>
    artifact.parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])),
  );
}
