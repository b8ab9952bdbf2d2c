import type * as Core from '@ag-ui/core';
import type { UIMessageChunk } from 'ai';
import type { AgentEvent } from '../common/events.ts';
import { approvalKey, EventChunks } from '../ui-stream/event-chunks.ts';

/** A call the run waits on: an approval to decide, a user's grant to give, or a frontend tool's result. */
export interface RunWait {
  kind: 'approval' | 'authorization' | 'frontend_tool';
  /** The call's key: its id, `<sub_run>#<call id>` for a sub-agent's call. */
  key: string;
}

/** How a turn ended, as its last event says. */
export interface RunEnd {
  outcome: 'success' | 'cancelled';
  /** A structured answer's object. */
  result?: unknown;
  usage?: Core.TokenUsage[];
}

/** What one event of the run adds to the AG-UI stream. */
export interface AgUiStep {
  events: Core.Event[];
  waits: RunWait[];
  end?: RunEnd;
}

/**
 * Turns a chat turn's events, in order, into AG-UI events (without `RUN_STARTED` / `RUN_FINISHED`,
 * which the stream writes with the run's ids). It reads them through {@link EventChunks}, the
 * UI-stream reading of the same events (steps, live text, a step taken again, sub-agents), and says
 * each of its chunks in AG-UI's words: `STEP_*`, `TEXT_MESSAGE_*`, `REASONING_*`, `TOOL_CALL_*`
 * and `TOOL_CALL_RESULT`, `SUBAGENT_*`, other events as `CUSTOM` (`toolkit.<type>`). The ids it
 * gives messages and steps count from the turn's start (`<turnId>.text.1`, ...), so every reader
 * of the same turn gets the same ids. An approval request or an authorization wait is a
 * {@link RunWait}; the end of the turn a {@link RunEnd}.
 */
export class AgUiEvents {
  readonly #chunks = new EventChunks();
  readonly #type: typeof Core.EventType;
  readonly #turnId: string;
  #steps = 0;
  #step: string | undefined;
  #texts = 0;
  #text: string | undefined;
  /** The text sent in the open text message. */
  #sent = '';
  /** A step written anew: its new text so far, while it repeats what the open message holds. */
  #rewrite: string | undefined;
  #reasonings = 0;
  #reasoning: string | undefined;
  readonly #subAgents = new Set<string>();
  /** The frontend tool calls read so far: the client has their results, the stream does not send them. */
  readonly #frontend = new Set<string>();
  #result: unknown;

  constructor(eventType: typeof Core.EventType, turnId: string) {
    this.#type = eventType;
    this.#turnId = turnId;
  }

  /** What `event` adds. */
  next(event: AgentEvent): AgUiStep {
    const step: AgUiStep = { events: [], waits: [] };
    for (const chunk of this.#chunks.next(event)) this.#say(chunk, event, step);
    if (event.type === 'authorization_required' && event.payload.sub_run === undefined) {
      const key = approvalKey(event.payload);
      if (key) step.waits.push({ kind: 'authorization', key });
    }
    if (event.type === 'tool_called') this.#frontendCall(event, step);
    return step;
  }

  /**
   * A frontend tool call (its `tool_called` names the step's frontend calls): once the last of the
   * step's is read, they all wait for the client.
   */
  #frontendCall(event: AgentEvent, step: AgUiStep): void {
    const { call_id: callId, frontend_calls: stepCalls, sub_run: subRun } = event.payload;
    if (subRun !== undefined || !Array.isArray(stepCalls) || typeof callId !== 'string') return;
    this.#frontend.add(callId);
    if (!stepCalls.every((id) => this.#frontend.has(String(id)))) return;
    for (const key of stepCalls) step.waits.push({ kind: 'frontend_tool', key: String(key) });
  }

  #say(chunk: UIMessageChunk, event: AgentEvent, step: AgUiStep): void {
    const E = this.#type;
    const out = step.events;
    switch (chunk.type) {
      case 'start-step':
        this.#step = `step ${++this.#steps}`;
        out.push({ type: E.STEP_STARTED, stepName: this.#step });
        return;
      case 'finish-step':
        if (this.#step) out.push({ type: E.STEP_FINISHED, stepName: this.#step });
        this.#step = undefined;
        return;
      case 'text-start':
        if (this.#rewrite !== undefined && this.#text) return;
        this.#open(out);
        return;
      case 'text-delta':
        if (this.#text && chunk.delta) this.#write(chunk.delta, out);
        return;
      case 'text-end':
        this.#rewrite = undefined;
        this.#close(out);
        return;
      case 'reset-step':
        // The step is written anew (taken again after its worker died): AG-UI cannot take back text,
        // so the new text goes on in the same message while it repeats what was sent.
        if (this.#text) this.#rewrite = '';
        return;
      case 'reasoning-start': {
        this.#reasoning = `${this.#turnId}.reasoning.${++this.#reasonings}`;
        const messageId = this.#reasoning;
        out.push(
          { type: E.REASONING_START, messageId },
          { type: E.REASONING_MESSAGE_START, messageId, role: 'reasoning' },
        );
        return;
      }
      case 'reasoning-delta':
        if (this.#reasoning && chunk.delta) {
          out.push({ type: E.REASONING_MESSAGE_CONTENT, messageId: this.#reasoning, delta: chunk.delta });
        }
        return;
      case 'reasoning-end':
        if (!this.#reasoning) return;
        out.push(
          { type: E.REASONING_MESSAGE_END, messageId: this.#reasoning },
          { type: E.REASONING_END, messageId: this.#reasoning },
        );
        this.#reasoning = undefined;
        return;
      case 'tool-input-available':
        out.push(
          { type: E.TOOL_CALL_START, toolCallId: chunk.toolCallId, toolCallName: chunk.toolName },
          { type: E.TOOL_CALL_ARGS, toolCallId: chunk.toolCallId, delta: JSON.stringify(chunk.input ?? {}) },
          { type: E.TOOL_CALL_END, toolCallId: chunk.toolCallId },
        );
        return;
      case 'tool-output-available':
        if (!this.#frontend.has(chunk.toolCallId)) out.push(this.#toolResult(chunk.toolCallId, chunk.output));
        return;
      case 'tool-output-error':
        if (!this.#frontend.has(chunk.toolCallId)) {
          out.push(this.#toolResult(chunk.toolCallId, `Error: ${chunk.errorText}`));
        }
        return;
      case 'tool-output-denied': {
        const reason = typeof event.payload.reason === 'string' ? event.payload.reason : 'no reason given';
        out.push(this.#toolResult(chunk.toolCallId, `Declined: ${reason}`));
        return;
      }
      case 'tool-approval-request':
        step.waits.push({ kind: 'approval', key: chunk.approvalId });
        return;
      case 'data-sub-agent':
        this.#subAgent(chunk.data as SubAgentData, out);
        return;
      case 'data-output':
        this.#result = chunk.data;
        return;
      case 'finish':
        step.end = this.#end(event);
        return;
      default:
        if (chunk.type.startsWith('data-') && 'data' in chunk) {
          out.push({ type: E.CUSTOM, name: `toolkit.${event.type}`, value: chunk.data });
        }
    }
  }

  #open(out: Core.Event[]): void {
    this.#text = `${this.#turnId}.text.${++this.#texts}`;
    this.#sent = '';
    out.push({ type: this.#type.TEXT_MESSAGE_START, messageId: this.#text, role: 'assistant' });
  }

  #close(out: Core.Event[]): void {
    if (this.#text) out.push({ type: this.#type.TEXT_MESSAGE_END, messageId: this.#text });
    this.#text = undefined;
  }

  /**
   * Text of the open message. A step written anew says nothing while it repeats the text sent, then
   * the rest; when it says something else, the message so far ends and its text is a message of its own.
   */
  #write(delta: string, out: Core.Event[]): void {
    let text = delta;
    if (this.#rewrite !== undefined) {
      const heard = this.#rewrite + delta;
      if (this.#sent.startsWith(heard)) {
        this.#rewrite = heard;
        return;
      }
      this.#rewrite = undefined;
      if (heard.startsWith(this.#sent)) text = heard.slice(this.#sent.length);
      else {
        this.#close(out);
        this.#open(out);
        text = heard;
      }
    }
    this.#sent += text;
    out.push({ type: this.#type.TEXT_MESSAGE_CONTENT, messageId: this.#text!, delta: text });
  }

  #toolResult(toolCallId: string, output: unknown): Core.Event {
    return {
      type: this.#type.TOOL_CALL_RESULT,
      messageId: `${toolCallId}.result`,
      toolCallId,
      role: 'tool',
      content: typeof output === 'string' ? output : JSON.stringify(output),
    };
  }

  /** A sub-agent run opens at its first event, and closes at its last (its `run_completed`). */
  #subAgent(data: SubAgentData, out: Core.Event[]): void {
    const E = this.#type;
    const id = String(data.sub_run);
    if (!this.#subAgents.has(id)) {
      this.#subAgents.add(id);
      out.push({
        type: E.SUBAGENT_STARTED,
        subagentRunId: id,
        name: typeof data.agent === 'string' ? data.agent : 'sub-agent',
      });
    }
    if (data.type === 'run_completed') {
      out.push({ type: E.SUBAGENT_FINISHED, subagentRunId: id, outcome: { type: 'success' } });
    } else if (data.type === 'run_cancelled') {
      out.push({ type: E.SUBAGENT_ERROR, subagentRunId: id, message: String(data.message) });
    }
  }

  #end(event: AgentEvent): RunEnd {
    const { payload } = event;
    const usage = tokenUsage(payload.usage, payload.model);
    return {
      outcome: event.type === 'run_cancelled' ? 'cancelled' : 'success',
      ...(this.#result === undefined ? {} : { result: this.#result }),
      ...(usage ? { usage } : {}),
    };
  }
}

interface SubAgentData {
  agent?: unknown;
  sub_run?: unknown;
  type?: unknown;
  message?: unknown;
}

/** The turn's usage (`run_completed.usage`) in AG-UI's accounting: one entry for the turn's model. */
function tokenUsage(usage: unknown, model: unknown): Core.TokenUsage[] | undefined {
  const counts = usage as Partial<Record<string, number>> | undefined;
  if (!counts || typeof counts.input_tokens !== 'number') return undefined;
  const entry: Core.TokenUsage = {
    ...(typeof model === 'string' ? { model } : {}),
    inputTokens: counts.input_tokens,
    outputTokens: counts.output_tokens ?? 0,
    totalTokens: counts.total_tokens ?? counts.input_tokens + (counts.output_tokens ?? 0),
    ...(typeof counts.reasoning_tokens === 'number' ? { reasoningTokens: counts.reasoning_tokens } : {}),
    ...(typeof counts.cached_input_tokens === 'number'
      ? { cachedInputTokens: counts.cached_input_tokens }
      : {}),
  };
  const written = (counts.cache_write_5m_tokens ?? 0) + (counts.cache_write_1h_tokens ?? 0);
  return [written > 0 ? { ...entry, cacheWriteInputTokens: written } : entry];
}
