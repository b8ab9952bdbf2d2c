import { ApplicationFailure, condition } from '@temporalio/workflow';
import type { ToolCall } from '../common/messages.ts';
import { MAX_TOOL_RESULT_CHARS, type FrontendTool, type ToolResultInput } from './types.ts';

/**
 * The frontend tool calls of a run (or chat turn) that wait for the client to run them and send
 * the result back, as approvals wait for a decision: a durable `condition` with a timeout, which
 * replay rebuilds; each result arrives as the `toolkit.toolResult` update, whose validator
 * ({@link FrontendCalls.validate}) refuses a call id that does not wait (forged, answered, timed
 * out) before anything reaches history.
 */
export class FrontendCalls {
  readonly #waiting = new Set<string>();
  readonly #results = new Map<string, ToolResultInput>();

  /** The ids of the calls that wait for their result now. */
  list(): string[] {
    return [...this.#waiting];
  }

  /**
   * Waits for the result of `call` for at most `timeoutMs`: undefined when none came. Rejects with
   * the scope's cancellation when the run is stopped meanwhile.
   */
  async wait(call: ToolCall, timeoutMs: number): Promise<ToolResultInput | undefined> {
    this.#waiting.add(call.id);
    try {
      const answered = await condition(() => this.#results.has(call.id), timeoutMs);
      return answered ? this.#results.get(call.id) : undefined;
    } finally {
      this.#waiting.delete(call.id);
    }
  }

  answer(input: ToolResultInput): void {
    this.#results.set(input.callId, input);
  }

  validate(input: ToolResultInput): void {
    const callId: unknown = input?.callId;
    if (typeof callId !== 'string' || callId === '') throw refusal('Name the tool call by its callId.');
    if (this.#results.has(callId)) throw refusal(`Tool call "${callId}" has its result already.`);
    if (!this.#waiting.has(callId)) {
      const waiting = this.list();
      throw refusal(
        `No frontend tool call "${callId}" waits for its result in this run. ` +
          (waiting.length ? `Waiting: ${waiting.join(', ')}.` : 'No call is waiting.'),
      );
    }
    if (typeof input.content !== 'string') throw refusal("A tool result's content is a string.");
    if (input.content.length > MAX_TOOL_RESULT_CHARS) {
      throw refusal(
        `The result of "${callId}" has ${input.content.length} characters; a tool result takes at most ${MAX_TOOL_RESULT_CHARS}.`,
      );
    }
    if (input.error !== undefined && typeof input.error !== 'string') {
      throw refusal("A tool result's error is a string.");
    }
  }
}

/** The calls of a step that the client runs (their tool is one of the turn's frontend tools). */
export function frontendCallIds(
  calls: ReadonlyArray<{ call: ToolCall }>,
  tools: readonly FrontendTool[] | undefined,
): string[] {
  if (!tools?.length) return [];
  const names = new Set(tools.map((tool) => tool.name));
  return calls.filter(({ call }) => names.has(call.name)).map(({ call }) => call.id);
}

function refusal(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, 'ToolResultRefused');
}
