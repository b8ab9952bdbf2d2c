import { randomUUID } from 'node:crypto';
import type { AgentClient } from '../client/agent-client.ts';
import type { AgentChatSession, ChatSessionOptions } from '../client/chat-session.ts';
import type { AgentEvent } from '../common/events.ts';
import { ConfigurationError } from '../errors.ts';
import { ChatRequestError } from '../ui-stream/chat-request.ts';
import { agUiPackages } from './ag-ui-packages.ts';
import { interruptsOf, resumeInterrupts } from './interrupts.ts';
import { agUiRun, type AgUiRunOptions } from './run-stream.ts';
import { frontendToolsOf, nextTurnText, readRunInput, toolResultsOf } from './run-input.ts';
import { refuseWhileToolCallsWait, sendToolResults } from './tool-results.ts';
import { parseEventId } from './stream-position.ts';

export interface AgUiHandlerOptions {
  /** The client that reaches the workers serving `agent`. */
  client: AgentClient;
  /** The agent each thread talks to (a name the workers register). */
  agent: string;
  /**
   * Whether the request may use this thread (false: 403). Default: every request may. Check that the
   * thread is the caller's: a thread id is all it takes to join its session otherwise.
   */
  authorize?: (request: Request, thread: { threadId: string }) => boolean | Promise<boolean>;
  /** The durable chat session of a thread. Default: the thread id (the session `chat-<threadId>`). */
  sessionId?: (request: Request, thread: { threadId: string }) => string | Promise<string>;
  /** Options of each session (tenant, limits, memoryStore, ...); `sessionId` is the handler's. */
  session?: Omit<ChatSessionOptions, 'sessionId'>;
}

const FEATURE = 'createAgUiHandler (AG-UI over durable chat sessions)';

/**
 * A web-standard handler (`(Request) => Promise<Response>`) that serves the AG-UI protocol over
 * HTTP and Server-Sent Events, on durable chat sessions: an AG-UI thread is the session
 * `chat-<threadId>`, which outlives any connection.
 * - `POST <base>`: a `RunAgentInput` (what `HttpAgent` sends). The last user message is the
 *   session's next turn, whose run id is the input's `runId` (a run sent again is not run twice).
 *   The answer streams back as AG-UI events: `RUN_STARTED`, `STEP_*`, `TEXT_MESSAGE_*`,
 *   `REASONING_*`, `TOOL_CALL_*` and `TOOL_CALL_RESULT`, `SUBAGENT_*`, `RUN_FINISHED` with the
 *   turn's token usage, or `RUN_ERROR`. A call that waits for approval or for a user's grant ends the
 *   run with an `interrupt` outcome, one `Interrupt` per waiting call (`toolCallId` set); the next
 *   run's `resume` entries (`{ interruptId, status, payload: { approved, reason? } }`) decide those
 *   calls in the waiting turn, which goes on in the new run (no new turn). An interrupt id that
 *   waits on nothing (forged, decided already, expired) is refused with 409.
 * - Frontend tools (the input's `tools`) are offered to the model for the turn, after the agent's
 *   own. A call of one ends the run (`TOOL_CALL_*`, then `RUN_FINISHED` whose `pendingToolCallIds`
 *   name the step's frontend calls) while the turn waits for it in its workflow; the next run's
 *   `tool` messages (the last messages, `toolCallId` set) are the calls' results, and the waiting
 *   turn goes on in that run (no new turn). A result is taken once (sent again while the turn
 *   runs, it changes nothing); a call id that waits on nothing is refused with 409.
 * - `GET <base>/<threadId>`: the thread's running turn (what `connectAgent` reads): from its start,
 *   or after the SSE id in `Last-Event-ID` (an id of another turn reads from the start); a thread
 *   with nothing running ends at once (no events).
 * Refusals are JSON `{ error }` with 400 (bad input), 403 (`authorize` said no), 404, 409.
 * @throws MissingDependencyError when `@ag-ui/core` or `@ag-ui/encoder` is not installed.
 * @see https://docs.ag-ui.com/concepts/events
 */
export function createAgUiHandler(options: AgUiHandlerOptions): (request: Request) => Promise<Response> {
  const { core, schemas, encoder } = agUiPackages(FEATURE);
  if (!options.agent) {
    throw new ConfigurationError('createAgUiHandler needs `agent`: the agent each thread talks to.');
  }
  const sessionOf = async (request: Request, threadId: string): Promise<AgentChatSession> => {
    if (options.authorize && !(await options.authorize(request, { threadId }))) {
      throw new ChatRequestError(403, 'This request may not use this thread.');
    }
    const sessionId = options.sessionId ? await options.sessionId(request, { threadId }) : threadId;
    try {
      return options.client.chatSession(options.agent, { ...options.session, sessionId });
    } catch (error) {
      throw new ChatRequestError(400, `The thread id cannot name a session: ${(error as Error).message}`);
    }
  };
  const respond = (
    session: AgentChatSession,
    events: AsyncIterable<AgentEvent>,
    run: Omit<AgUiRunOptions, 'interrupts'>,
  ): Response => {
    const sse = new encoder.EventEncoder();
    const frames = agUiRun(core.EventType, events, {
      ...run,
      interrupts: (waits) => interruptsOf(session, waits),
    });
    const text = new TextEncoder();
    const body = ReadableStream.from(
      (async function* () {
        for await (const { event, id } of frames) {
          // The encoder writes the event; the `id:` line before it is where a reader resumes.
          yield text.encode(`${id ? `id: ${id}\n` : ''}${sse.encodeSSE(event)}`);
        }
      })(),
    );
    return new Response(body, {
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' },
    });
  };

  const post = async (request: Request): Promise<Response> => {
    const input = await readRunInput(request, schemas.RunAgentInputSchema);
    const session = await sessionOf(request, input.threadId);
    const run = { threadId: input.threadId, runId: input.runId };
    if (input.resume && input.resume.length > 0) {
      const turn = await session.runningTurn();
      if (!turn) {
        throw new ChatRequestError(
          409,
          'Nothing of this thread waits to be resumed: run it again without `resume`.',
        );
      }
      const continueAfter = await resumeInterrupts(session, input.resume);
      return respond(session, turn.events, { ...run, turnId: turn.turnId, continueAfter });
    }
    const results = toolResultsOf(input);
    if (results.length > 0) {
      const turn = await session.runningTurn();
      if (!turn) {
        throw new ChatRequestError(
          409,
          'Nothing of this thread waits for tool results (its turn has ended): send a user message to start a new turn.',
        );
      }
      const continueAfter = await sendToolResults(session, results);
      return respond(session, turn.events, { ...run, turnId: turn.turnId, continueAfter });
    }
    const text = nextTurnText(input);
    const frontendTools = frontendToolsOf(input);
    await refuseWhileToolCallsWait(session);
    const turnId = /^[\w.:@/-]{1,200}$/.test(input.runId) ? input.runId : randomUUID();
    return respond(session, session.stream(text, { messageId: turnId, frontendTools }), { ...run, turnId });
  };

  const connect = async (request: Request, threadId: string): Promise<Response> => {
    const session = await sessionOf(request, threadId);
    const turn = await session.runningTurn();
    // Nothing runs: the stream ends at once, with no run in it.
    if (!turn) return new Response('', { headers: { 'content-type': 'text/event-stream' } });
    const after = parseEventId(request.headers.get('last-event-id'), turn.turnId);
    return respond(session, turn.events, {
      threadId,
      runId: turn.turnId,
      turnId: turn.turnId,
      ...(after ? { after } : {}),
    });
  };

  return async (request) => {
    const path = new URL(request.url).pathname;
    const thread = /\/([^/]+)$/.exec(path);
    try {
      if (request.method === 'POST') return await post(request);
      if (request.method === 'GET' && thread) return await connect(request, decodeURIComponent(thread[1]!));
      throw new ChatRequestError(
        404,
        `No AG-UI route ${request.method} ${path}: POST <base> (a RunAgentInput), GET <base>/<threadId> (the running turn).`,
      );
    } catch (error) {
      if (!(error instanceof ChatRequestError)) throw error;
      return Response.json({ error: error.message }, { status: error.status });
    }
  };
}
