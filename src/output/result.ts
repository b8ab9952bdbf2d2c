import type { AgentResult } from '../common/run.ts';
import { OutputValidationError } from '../errors.ts';

/**
 * A run's result as `result()` hands it out: a structured run that ended with `invalid_output`
 * becomes an {@link OutputValidationError}; everything else is returned as it is.
 */
export function checkedResult<T>(workflowId: string, result: AgentResult<unknown>): AgentResult<T> {
  const failure = result.metadata?.output_error;
  if (result.metadata?.stop_reason === 'invalid_output' && failure) {
    throw new OutputValidationError(workflowId, failure);
  }
  return result as AgentResult<T>;
}
