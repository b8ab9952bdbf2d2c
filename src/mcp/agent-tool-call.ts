import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentClient } from '../client/agent-client.ts';
import type { AgentEvent } from '../common/events.ts';
import type { JsonSchemaObject } from '../output/types.ts';

/** What one `run_<agent>` call needs from the MCP server that received it, whichever SDK line. */
export interface AgentToolCallIo<Asked = never> {
  /** Aborts when the client cancels or disconnects (the run goes on). */
  signal: AbortSignal;
  /** Sends one progress message to the client (only when it asked for progress). */
  progress(message: string): void;
  /**
   * Puts what the run waits on before the client (an `authorization_required`, or its
   * `authorization_granted`; an `approval_requested`); a result ends the call with it, undefined goes on.
   */
  ask(
    workflowId: string,
    event: AgentEvent,
  ): CallToolResult | Asked | undefined | Promise<CallToolResult | Asked | undefined>;
}

/** A call that goes on with a run it started before (a 2026-07-28 retry): the events after `after`. */
export interface ResumedCall {
  workflowId: string;
  /** The cursor of the last event the earlier round handled. */
  after: string;
}

/**
 * One call of the tool `run_<agent>`: starts a durable run (or the session's next turn), reports
 * each run event as progress (the first names the workflow) and answers with the final output, in
 * `structuredContent.output` too (an object when the agent has an `output` schema).
 */
export async function runAgentToolCall<Asked = never>(
  agents: AgentClient,
  agent: string,
  { prompt, session_id }: { prompt: string; session_id?: string | undefined },
  outputSchema: JsonSchemaObject | undefined,
  io: AgentToolCallIo<Asked>,
  resume?: ResumedCall,
): Promise<CallToolResult | Asked> {
  try {
    let workflowId: string;
    let events: AsyncGenerator<AgentEvent>;
    let result: (() => Promise<{ output: unknown }>) | undefined;
    if (resume) {
      const handle = agents.getHandle(resume.workflowId);
      workflowId = resume.workflowId;
      events = handle.events({ after: resume.after });
      result = () => handle.result();
    } else if (session_id) {
      const session = agents.chatSession(agent, { sessionId: session_id });
      workflowId = session.workflowId;
      events = session.stream(prompt);
    } else {
      const handle = await agents.startRun(agent, prompt);
      workflowId = handle.workflowId;
      events = handle.events();
      result = () => handle.result();
    }
    if (!resume) io.progress(`Run started: workflow ${workflowId}`);
    let answer: unknown;
    let invalid: string | undefined;
    for await (const event of untilAborted(events, io.signal)) {
      io.progress(`${event.type}: ${event.message}`);
      const asked = await io.ask(workflowId, event);
      if (asked) return asked;
      if (event.type === 'run_completed') {
        answer = event.payload.output;
        if (event.payload.stop_reason === 'invalid_output') invalid = asReason(event.payload.reason);
      }
    }
    if (io.signal.aborted) {
      return { content: [{ type: 'text', text: `The client left; run ${workflowId} goes on.` }] };
    }
    if (invalid !== undefined) throw new Error(`Run ${workflowId}: ${invalid}`);
    answer = result ? (await result()).output : (answer ?? (outputSchema ? undefined : ''));
    const text = typeof answer === 'string' ? answer : JSON.stringify(answer ?? null);
    return {
      content: [{ type: 'text', text }],
      structuredContent: {
        output: answer,
        workflow_id: workflowId,
        ...(session_id ? { session_id } : {}),
      },
    };
  } catch (error) {
    return {
      isError: true,
      content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
    };
  }
}

/** The events until the signal aborts (the client disconnected or cancelled): then stops reading, the run itself goes on. */
async function* untilAborted<T>(events: AsyncGenerator<T>, signal: AbortSignal): AsyncGenerator<T> {
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) resolve('aborted');
    signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([events.next(), aborted]);
      if (next === 'aborted' || next.done) return;
      yield next.value;
    }
  } finally {
    void events.return(undefined).catch(() => undefined);
  }
}

function asReason(reason: unknown): string {
  return typeof reason === 'string' ? reason : 'the answer did not match the output schema';
}
