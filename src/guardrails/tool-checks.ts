import type { GuardrailTrip } from './recorded.ts';
import type { RegisteredGuardrails } from './registered.ts';
import type { GuardrailContext, GuardrailToolCall } from './types.ts';
import { recordedVerdict } from './verdict.ts';

/** What the tool checks made of a call (or its result): go on, answer the model with `message`, or trip. */
export type ToolChecked =
  undefined | { reject: string; check: string; phase: 'before' | 'after' } | { trip: GuardrailTrip };

/**
 * The agent's tool checks on one call, in order, inside the call's activity (where its arguments
 * and result are): the first that rejects or trips decides. What they say is `redact`ed of the
 * secrets the call read, so it never reaches the recorded outcome.
 */
export async function checkToolCall(
  guardrails: RegisteredGuardrails | undefined,
  call: GuardrailToolCall,
  context: GuardrailContext,
  redact: (text: string) => string,
  chosen?: readonly string[],
): Promise<ToolChecked> {
  for (const guardrail of guardrails?.tools.values() ?? []) {
    if (guardrail.tools && !guardrail.tools.includes(call.tool)) continue;
    if (chosen && !chosen.includes(guardrail.name)) continue;
    const verdict = recordedVerdict('tool', guardrail.name, await guardrail.check(call, context), redact);
    if ('tripwire' in verdict)
      return {
        trip: {
          kind: 'tool',
          check: guardrail.name,
          reason: verdict.tripwire,
          tool: call.tool,
          phase: call.phase,
        },
      };
    if ('reject' in verdict) return { reject: verdict.reject, check: guardrail.name, phase: call.phase };
  }
  return undefined;
}
