import type { GuardrailTrip } from './recorded.ts';
import type { RegisteredGuardrails } from './registered.ts';
import type { GuardrailContext, OutputGuardrail } from './types.ts';
import { recordedVerdict } from './verdict.ts';

/**
 * The `streaming: true` output checks of one model step, asked inside its activity on the text so
 * far before each batch of live text is sent: the first trip aborts the model (`signal`), the batch
 * and those after it are never sent, and the step answers the trip instead of its text (nothing of
 * it is stored). Only a `tripwire` counts while the answer is written.
 */
export class StreamingOutputChecks {
  readonly #checks: OutputGuardrail[];
  readonly #context: GuardrailContext;
  readonly #abort = new AbortController();
  /** The check that tripped, once one did. */
  trip: GuardrailTrip | undefined;

  private constructor(checks: OutputGuardrail[], context: GuardrailContext) {
    this.#checks = checks;
    this.#context = context;
  }

  /** The step's streaming checks; undefined when the agent has none. */
  static of(
    guardrails: RegisteredGuardrails | undefined,
    context: GuardrailContext,
    chosen?: readonly string[],
  ): StreamingOutputChecks | undefined {
    const checks = [...(guardrails?.output.values() ?? [])].filter(
      (check) => check.streaming === true && (!chosen || chosen.includes(check.name)),
    );
    return checks.length ? new StreamingOutputChecks(checks, context) : undefined;
  }

  /** Aborted when a check trips: the model stops writing. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Whether the text so far may be sent (no check tripped on it). */
  async allows(textSoFar: string): Promise<boolean> {
    if (this.trip) return false;
    for (const guardrail of this.#checks) {
      const verdict = recordedVerdict(
        'output',
        guardrail.name,
        await guardrail.check({ text: textSoFar, partial: true }, this.#context),
      );
      if ('tripwire' in verdict) {
        this.trip = { kind: 'output', check: guardrail.name, reason: verdict.tripwire, withdrawn: true };
        this.#abort.abort(new Error(`The output guardrail "${guardrail.name}" tripped.`));
        return false;
      }
    }
    return true;
  }
}
