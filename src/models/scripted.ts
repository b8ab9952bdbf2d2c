import type { ToolCall, Usage } from '../common/messages.ts';
import { ToolkitError } from '../errors.ts';
import type { ModelAdapter, ModelRequest, ModelResponse } from './model-adapter.ts';

/** One scripted model answer. */
export interface ScriptedStep {
  text?: string;
  reasoning?: string;
  toolCalls?: Array<{ name: string; args: Record<string, unknown>; id?: string }>;
  usage?: Usage;
  /** Wait this long before answering (simulates a slow model; honours cancellation). */
  delayMs?: number;
  /**
   * A structured answer: its JSON is the step's text (written as live text in a few pieces when the
   * run streams). Any JSON value; the run checks it against its schema like a real model's answer.
   */
  object?: unknown;
}

/**
 * A model that answers from a script, for tests and examples. Every request is recorded in
 * {@link ScriptedModel.calls}; a step too many throws, and {@link ScriptedModel.assertAllStepsUsed}
 * fails a test that left steps unused. A step may be a function of the request.
 *
 * @example
 * const llm = new ScriptedModel([
 *   { toolCalls: [{ name: 'custom_api', args: { method: 'GET', path: '/status' } }] },
 *   { text: 'The service is up.' },
 * ]);
 * // A structured run's answer: { object: { priority: 'high', team: 'billing' } }
 */
export class ScriptedModel implements ModelAdapter {
  readonly specificationVersion = 'toolkit-agent.model.v1';
  readonly modelId = 'scripted';
  /** Structured runs hand it their schema (`calls[i].output`) and take `object` steps as answers. */
  readonly structuredOutput = 'native';
  readonly calls: ModelRequest[] = [];
  readonly #steps: Array<ScriptedStep | ((request: ModelRequest) => ScriptedStep | Promise<ScriptedStep>)>;

  constructor(
    steps: Array<ScriptedStep | ((request: ModelRequest) => ScriptedStep | Promise<ScriptedStep>)>,
  ) {
    this.#steps = [...steps];
  }

  /** Steps not yet used. */
  get remaining(): number {
    return this.#steps.length - this.calls.length;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const index = this.calls.length;
    this.calls.push({
      messages: structuredClone(request.messages),
      tools: structuredClone(request.tools),
      ...(request.output ? { output: structuredClone(request.output) } : {}),
    });
    const entry = this.#steps[index];
    if (entry === undefined) {
      throw new ToolkitError(
        'SCRIPT_EXHAUSTED',
        `ScriptedModel was asked for step ${index + 1} but the script has only ${this.#steps.length} step(s). ` +
          'Add a step, or check why the agent called the model again.',
      );
    }
    const step = typeof entry === 'function' ? await entry(request) : entry;
    if (step.delayMs) await abortableDelay(step.delayMs, request.signal);
    const toolCalls: ToolCall[] = (step.toolCalls ?? []).map((call, i) => ({
      id: call.id ?? `call_${index + 1}_${i + 1}`,
      name: call.name,
      args: call.args,
    }));
    const text = step.object === undefined ? (step.text ?? '') : JSON.stringify(step.object);
    if (step.object !== undefined && request.onTextDelta) {
      for (const piece of text.match(/[\s\S]{1,16}/g) ?? []) request.onTextDelta(piece);
    }
    return { text, toolCalls, reasoning: step.reasoning, usage: step.usage };
  }

  /** Throws when steps of the script were never used. Call it at the end of a test. */
  assertAllStepsUsed(): void {
    if (this.remaining > 0) {
      throw new Error(
        `ScriptedModel: ${this.remaining} of ${this.#steps.length} step(s) were never used ` +
          `(the agent called the model ${this.calls.length} time(s)).`,
      );
    }
  }
}

function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason instanceof Error ? signal.reason : new Error('The model call was cancelled.'));
      },
      { once: true },
    );
  });
}
