import type { AgentResult } from '../common/run.ts';
import { GuardrailTripped, OutputValidationError, QuotaExceededError } from '../errors.ts';

/**
 * A run's result as `result()` hands it out: a structured run that ended with `invalid_output`
 * becomes an {@link OutputValidationError}, a run a quota refused at its start a
 * {@link QuotaExceededError}, a run a guardrail stopped a {@link GuardrailTripped}; everything else is returned as it is.
 */
export function checkedResult<T>(workflowId: string, result: AgentResult<unknown>): AgentResult<T> {
  const refused = result.metadata?.refused;
  if (result.metadata?.stop_reason === 'quota' && refused)
    throw new QuotaExceededError(refused, { workflowId });
  const trip = result.metadata?.guardrail;
  if (result.metadata?.stop_reason === 'guardrail' && trip)
    throw new GuardrailTripped(workflowId, trip, result);
  const failure = result.metadata?.output_error;
  if (result.metadata?.stop_reason === 'invalid_output' && failure) {
    throw new OutputValidationError(workflowId, failure);
  }
  return result as AgentResult<T>;
}
