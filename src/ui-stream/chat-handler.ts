import { randomUUID } from 'node:crypto';
import type { AgentClient } from '../client/agent-client.ts';
import type { AgentChatSession, ChatSessionOptions } from '../client/chat-session.ts';
import type { AgentEvent } from '../common/events.ts';
import { ConfigurationError, ControlRefusedError } from '../errors.ts';
import { aiPackage } from './ai-package.ts';
import { chatAsk, ChatRequestError, readChatBody, type ChatRequestBody } from './chat-request.ts';
import { chunkStream } from './chunk-stream.ts';
import { approvalKey } from './event-chunks.ts';

export interface ChatHandlerOptions {
  /** The client that reaches the workers serving `agent`. */
  client: AgentClient;
  /** The agent each chat talks to (a name the workers register). */
  agent: string;
  /**
   * The durable chat session a request belongs to. Default: the chat id `useChat` sends. Derive it
   * from the user too (`${user}:${body.id}`) so that no one reaches another's session by its id.
   */
  sessionId?: (request: Request, body: { id: string }) => string | Promise<string>;
  /** Whether the request may use this chat (false: 403). Default: every request may. */
  authorize?: (request: Request, body: { id: string }) => boolean | Promise<boolean>;
  /** Options of each session (tenant, limits, memoryStore, ...); `sessionId` is the handler's. */
  session?: Omit<ChatSessionOptions, 'sessionId'>;
}

const FEATURE = 'createChatHandler (chat over the AI SDK UI message stream)';

/**
 * A web-standard handler (`(Request) => Promise<Response>`) that an unmodified `useChat`
 * (`DefaultChatTransport`) talks to, over durable chat sessions (one per chat id):
 * - `POST <base>`: the body `useChat` sends. A last user message becomes a turn of the session and
 *   its answer streams back as the UI message stream. A last assistant message carrying approval
 *   responses (`addToolApprovalResponse`, resubmitted with `sendAutomaticallyWhen:
 *   lastAssistantMessageIsCompleteWithApprovalResponses`) decides those calls in the waiting turn
 *   and streams its continuation; approval ids are checked against the turn's pending approvals.
 *   The stream ends when a call waits for approval (the turn waits on the server).
 * - `GET <base>/<chatId>/stream`: `useChat`'s resume. The turn in progress from its start, or 204.
 * - `POST <base>/<chatId>/stop`: stops the turn in progress (call it with `useChat`'s `stop()`);
 *   204, or 409 when none runs. The session goes on: the next message is a new turn.
 * Refusals are JSON `{ error }` with 400 (bad body), 403 (`authorize` said no), 404, 409.
 * @throws MissingDependencyError when the `ai` package is not installed.
 * @see https://ai-sdk.dev/docs/ai-sdk-ui/chatbot-resume-streams
 */
export function createChatHandler(options: ChatHandlerOptions): (request: Request) => Promise<Response> {
  const { createUIMessageStreamResponse } = aiPackage(FEATURE);
  if (!options.agent)
    throw new ConfigurationError('createChatHandler needs `agent`: the agent each chat talks to.');
  const sessionOf = async (request: Request, body: { id: string }): Promise<AgentChatSession> => {
    if (options.authorize && !(await options.authorize(request, body))) {
      throw new ChatRequestError(403, 'This request may not use this chat.');
    }
    const sessionId = options.sessionId ? await options.sessionId(request, body) : body.id;
    try {
      return options.client.chatSession(options.agent, { ...options.session, sessionId });
    } catch (error) {
      throw new ChatRequestError(400, `The chat id cannot name a session: ${(error as Error).message}`);
    }
  };
  const respond = (events: AsyncIterable<AgentEvent>, chunkOptions: Parameters<typeof chunkStream>[2]) =>
    createUIMessageStreamResponse({
      stream: chunkStream(events, FEATURE, { ...chunkOptions, endAtApproval: true }),
    });

  const post = async (request: Request): Promise<Response> => {
    const body: ChatRequestBody = await readChatBody(request);
    const ask = chatAsk(body);
    const session = await sessionOf(request, body);
    if (ask.kind === 'message') {
      const turnId =
        /^[\w.:@/-]{1,200}$/.test(ask.messageId) && body.trigger !== 'regenerate-message'
          ? ask.messageId
          : randomUUID();
      return respond(session.stream(ask.text, { messageId: turnId }), { messageId: answerId(turnId) });
    }
    const turn = await session.runningTurn();
    // An approval id is one of the turn's waiting calls (its own or a sub-agent's), or it decides nothing.
    const pending = new Map(
      (await session.pendingApprovals()).map((approval) => [approvalKey(approval), approval]),
    );
    const decided = ask.decisions.filter((decision) => pending.has(decision.approvalId));
    if (!turn || decided.length === 0) {
      throw new ChatRequestError(
        409,
        'No call of this chat waits for these approvals (decided already, expired, or never asked): reload the chat.',
      );
    }
    for (const decision of decided) {
      const callId = pending.get(decision.approvalId)!.call_id;
      if (decision.approved) await session.approve(callId);
      else await session.reject(callId, decision.reason ?? 'Rejected in the chat.');
    }
    return respond(turn.events, {
      messageId: answerId(turn.turnId),
      continueAfterApprovals: new Set(decided.map((decision) => decision.approvalId)),
    });
  };

  const resume = async (request: Request, chatId: string): Promise<Response> => {
    const session = await sessionOf(request, { id: chatId });
    const turn = await session.runningTurn();
    if (!turn) return new Response(null, { status: 204 });
    return respond(turn.events, { messageId: answerId(turn.turnId) });
  };

  const stop = async (request: Request, chatId: string): Promise<Response> => {
    const session = await sessionOf(request, { id: chatId });
    try {
      await session.cancelTurn('Stopped in the chat.');
    } catch (error) {
      if (error instanceof ControlRefusedError) throw new ChatRequestError(409, error.message);
      throw error;
    }
    return new Response(null, { status: 204 });
  };

  return async (request) => {
    const path = new URL(request.url).pathname;
    const route = /\/([^/]+)\/(stream|stop)$/.exec(path);
    try {
      if (route && request.method === 'GET' && route[2] === 'stream') {
        return await resume(request, decodeURIComponent(route[1]!));
      }
      if (route && request.method === 'POST' && route[2] === 'stop') {
        return await stop(request, decodeURIComponent(route[1]!));
      }
      if (!route && request.method === 'POST') return await post(request);
      throw new ChatRequestError(
        404,
        `No chat route ${request.method} ${path}: POST <base>, GET <base>/<chatId>/stream, POST <base>/<chatId>/stop.`,
      );
    } catch (error) {
      if (!(error instanceof ChatRequestError)) throw error;
      return Response.json({ error: error.message }, { status: error.status });
    }
  };
}

/** The id of a turn's answer in the page: the same for the stream, its resume and its continuation. */
function answerId(turnId: string): string {
  return `answer-${turnId}`;
}
