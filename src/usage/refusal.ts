import { ApplicationFailure } from '@temporalio/common';
import { QuotaExceededError, type QuotaExceededDetails } from '../errors.ts';
import { QUOTA_FAILURE_TYPE } from './failure-type.ts';

/** The {@link QuotaExceededError} a failure carries (in it or its causes), for the caller; undefined when it is another failure. */
export function quotaExceededIn(error: unknown, workflowId?: string): QuotaExceededError | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && e.type === QUOTA_FAILURE_TYPE) {
      const details = e.details?.[0] as QuotaExceededDetails | undefined;
      if (details?.quota)
        return new QuotaExceededError(details, { cause: error, ...(workflowId ? { workflowId } : {}) });
    }
  }
  return undefined;
}
