import type { UIMessageChunk } from 'ai';
import type { AgentEvent } from '../common/events.ts';

/**
 * Turns a run's or chat turn's events, in order, into the AI SDK's UI message chunks: one
 * `start-step` … `finish-step` per model step, its live text as `text-*` (the answer itself when no
 * text streamed), its reasoning as `reasoning-*`, each tool call as `tool-input-available` then
 * `tool-output-available` / `tool-output-error`, an approval as `tool-approval-request` (its
 * `approvalId` is the call id, which the chat handler checks against the run's pending approvals)
 * and a rejected call as `tool-output-denied`. A structured answer's partial object is
 * `data-partial-output` (one part, updated) and the final object `data-output`; a sub-agent run's
 * events are `data-sub-agent` (one part per child run, updated to its latest event; a call of
 * one that waits for approval is also a tool part, by its {@link approvalKey}); other events
 * are `data-<type>` parts (`data-warning`, `data-handoff`, ...). Tool parts are `dynamic`: the page
 * need not declare the server's tools. A step taken again after its worker died (a higher
 * `attempt`) is `reset-step`, then written anew: the page shows its text once.
 */
export class EventChunks {
  #step: string | undefined;
  #text: string | undefined;
  #stepHadText = false;
  /** The text the step streamed (in its latest attempt). */
  #stepText = '';
  /** The attempt of the step whose text streams: a higher one writes the step anew. */
  #attempt = 1;
  #calls = new Set<string>();
  #denied = new Set<string>();
  /** The step in flight was opened by its text alone (no `step_started` yet, nothing but text). */
  #textOpened = false;

  /** The chunks that `event` adds. */
  next(event: AgentEvent): UIMessageChunk[] {
    const { payload } = event;
    if (!TEXT_ONLY.has(event.type)) this.#textOpened = false;
    if (payload.sub_run !== undefined) return [this.#subAgent(event), ...this.#subAgentCall(event)];
    const key = event.cursor ?? String(event.seq);
    const callId = typeof payload.call_id === 'string' ? payload.call_id : undefined;
    switch (event.type) {
      case 'run_started':
        return [];
      case 'step_started':
        // A run's first step may be shown live before its start: this starts the step its text opened.
        if (this.#textOpened) {
          this.#textOpened = false;
          return [];
        }
        return [...this.#endStep(), ...this.#startStep(key)];
      case 'text_delta': {
        const delta = typeof payload.text === 'string' ? payload.text : '';
        if (!delta) return [];
        const opened = !this.#step;
        const chunks = this.#inStep(key);
        if (opened) this.#textOpened = true;
        const attempt = typeof payload.attempt === 'number' ? payload.attempt : 1;
        if (attempt > this.#attempt) {
          // The step is taken again (its worker died): what it wrote before goes, the new text comes.
          if (this.#stepHadText) chunks.push({ type: 'reset-step' });
          this.#text = undefined;
          this.#stepText = '';
          this.#attempt = attempt;
        }
        if (!this.#text) {
          this.#text = `text-${key}`;
          chunks.push({ type: 'text-start', id: this.#text });
        }
        this.#stepHadText = true;
        this.#stepText += delta;
        chunks.push({ type: 'text-delta', id: this.#text, delta });
        return chunks;
      }
      case 'reasoning_started':
        return [];
      case 'reasoning_completed': {
        const reasoning = typeof payload.reasoning === 'string' ? payload.reasoning : '';
        if (!reasoning) return [];
        const id = `reasoning-${key}`;
        return [
          ...this.#inStep(key),
          { type: 'reasoning-start', id },
          { type: 'reasoning-delta', id, delta: reasoning },
          { type: 'reasoning-end', id },
        ];
      }
      case 'tool_called':
        if (!callId || this.#calls.has(callId)) return [];
        this.#calls.add(callId);
        return [
          ...this.#inStep(key),
          ...this.#endText(),
          {
            type: 'tool-input-available',
            toolCallId: callId,
            toolName: String(payload.tool),
            input: payload.args ?? {},
            dynamic: true,
          },
        ];
      case 'approval_requested':
        if (!callId) return [];
        return [
          ...this.#called(event, callId, key),
          { type: 'tool-approval-request', approvalId: callId, toolCallId: callId },
        ];
      case 'approval_rejected':
        if (!callId) return [];
        this.#denied.add(callId);
        return [...this.#called(event, callId, key), { type: 'tool-output-denied', toolCallId: callId }];
      case 'tool_completed':
        if (!callId || this.#denied.has(callId)) return [];
        return [
          ...this.#called(event, callId, key),
          { type: 'tool-output-available', toolCallId: callId, output: payload.output ?? '', dynamic: true },
        ];
      case 'tool_failed':
        if (!callId || this.#denied.has(callId)) return [];
        return [
          ...this.#called(event, callId, key),
          { type: 'tool-output-error', toolCallId: callId, errorText: String(payload.error), dynamic: true },
        ];
      case 'partial_output':
        return [{ type: 'data-partial-output', id: 'partial-output', data: payload.output }];
      case 'run_completed':
      case 'run_cancelled':
        return this.#end(event, key);
      case 'guardrail_tripped': {
        const chunks: UIMessageChunk[] = [];
        // A streaming output check withdrew what the step wrote: the page drops it.
        if (payload.withdrawn === true && this.#stepHadText) {
          chunks.push({ type: 'reset-step' });
          this.#text = undefined;
          this.#stepText = '';
          this.#stepHadText = false;
        }
        chunks.push({ type: 'data-guardrail-tripped', data: { message: event.message, ...payload } });
        return chunks;
      }
      default:
        return [
          { type: `data-${event.type.replaceAll('_', '-')}`, data: { message: event.message, ...payload } },
        ];
    }
  }

  /** Where a reader stops before the run has ended (it waits for an approval): the step closed, `finish`. */
  pause(): UIMessageChunk[] {
    return [...this.#endStep(), { type: 'finish' }];
  }

  /** The end of the answer: the step's text closed, the answer's text if none streamed, `finish`. */
  #end(event: AgentEvent, key: string): UIMessageChunk[] {
    const { payload } = event;
    const chunks: UIMessageChunk[] = [];
    const output = payload.output;
    const text = typeof output === 'string' ? output : typeof payload.text === 'string' ? payload.text : '';
    // The answer as the run kept it, unless the last step streamed exactly that (a step taken again
    // may have written part of another answer first, or nothing live).
    if (event.type === 'run_completed' && text && this.#stepText !== text) {
      const id = `text-${key}`;
      chunks.push(...this.#inStep(key));
      if (this.#stepHadText) chunks.push({ type: 'reset-step' });
      this.#text = undefined;
      chunks.push(
        { type: 'text-start', id },
        { type: 'text-delta', id, delta: text },
        { type: 'text-end', id },
      );
    }
    if (output !== undefined && typeof output !== 'string') {
      chunks.push({ type: 'data-output', id: 'output', data: output });
    }
    chunks.push(...this.#endStep());
    const completed = payload.stop_reason === undefined || payload.stop_reason === 'completed';
    chunks.push({
      type: 'finish',
      finishReason: event.type === 'run_completed' && completed ? 'stop' : 'other',
    });
    return chunks;
  }

  /** A call's event when its `tool_called` was not read (a turn resumed after it): the call first. */
  #called(event: AgentEvent, callId: string, key: string): UIMessageChunk[] {
    if (this.#calls.has(callId)) return [];
    return this.next({ ...event, type: 'tool_called', seq: event.seq, cursor: key });
  }

  /**
   * A sub-agent's call that waits for approval is a tool part of the answer too (under its
   * {@link approvalKey}), so the page can approve it; its result follows it there.
   */
  #subAgentCall(event: AgentEvent): UIMessageChunk[] {
    const key = approvalKey(event.payload);
    if (!key || !CALL_EVENTS.has(event.type)) return [];
    const asks = event.type === 'approval_requested' || event.type === 'approval_rejected';
    if (!asks && !this.#calls.has(key)) return [];
    const { sub_run: _child, ...payload } = event.payload;
    return this.next({ ...event, payload: { ...payload, call_id: key } });
  }

  #subAgent(event: AgentEvent): UIMessageChunk {
    const { agent, sub_run, depth } = event.payload;
    return {
      type: 'data-sub-agent',
      id: `sub-agent-${String(sub_run)}`,
      data: { agent, sub_run, depth, type: event.type, message: event.message },
    };
  }

  #inStep(key: string): UIMessageChunk[] {
    return this.#step ? [] : this.#startStep(key);
  }

  #startStep(key: string): UIMessageChunk[] {
    this.#step = key;
    this.#textOpened = false;
    this.#stepHadText = false;
    this.#stepText = '';
    this.#attempt = 1;
    return [{ type: 'start-step' }];
  }

  #endText(): UIMessageChunk[] {
    if (!this.#text) return [];
    const id = this.#text;
    this.#text = undefined;
    return [{ type: 'text-end', id }];
  }

  #endStep(): UIMessageChunk[] {
    if (!this.#step) return [];
    this.#step = undefined;
    return [...this.#endText(), { type: 'finish-step' }];
  }
}

/** Events a step opened by its text alone may hold before its `step_started`. */
const TEXT_ONLY = new Set(['text_delta', 'partial_output', 'step_started']);

const CALL_EVENTS = new Set([
  'approval_requested',
  'approval_rejected',
  'tool_called',
  'tool_completed',
  'tool_failed',
]);

/**
 * The id of a call's approval (and tool part) in the UI stream: the call id, and for a sub-agent
 * run's call `<sub_run>#<call id>` (call ids are unique in one run only). `undefined` without a call id.
 */
export function approvalKey(payload: { call_id?: unknown; sub_run?: unknown }): string | undefined {
  if (typeof payload.call_id !== 'string') return undefined;
  return typeof payload.sub_run === 'string' ? `${payload.sub_run}#${payload.call_id}` : payload.call_id;
}
