import { patched, workflowInfo } from '@temporalio/workflow';
import type { AgentResult, AgentRunInput } from '../common/run.ts';
import { quotaFailureDetails, quotaFailureMessage } from '../usage/failure-type.ts';
import { showEnd } from '../visibility/current-details.ts';
import type { EventLog } from './event-log.ts';

/** Runs a quota refused at their start complete (`stop_reason: 'quota'`) instead of failing; older ones failed. */
const REFUSED_RUNS_COMPLETE = 'refused-runs-complete';

/**
 * The result of a run that a tenant's quota refused at its start (nothing ran): a completed run with
 * `stop_reason: 'quota'` and the refusal in `metadata.refused`, so the Temporal UI and failure
 * alerts do not count it as failed; the client's `result()` still rejects with a `QuotaExceededError`.
 * Undefined when `error` is another failure, or the run is a sub-agent's (never refused at its start).
 */
export function refusedRun(
  error: unknown,
  input: AgentRunInput,
  events: EventLog,
): AgentResult<unknown> | undefined {
  const refused = input.parent ? undefined : quotaFailureDetails(error);
  // Asked only on this path: the histories of runs that were not refused are unchanged.
  if (!refused || !patched(REFUSED_RUNS_COMPLETE)) return undefined;
  const reason = quotaFailureMessage(error) ?? refused.quota;
  showEnd('quota', 0, {});
  events.emit('run_completed', `Run refused: ${reason}`, {
    output: undefined,
    stop_reason: 'quota',
    iterations: 0,
    reason,
    refused,
  });
  const { workflowId, runId } = workflowInfo();
  return {
    output: undefined,
    metadata: {
      used_skills: [],
      used_skill_tools: [],
      unavailable_skill_tools: [],
      unavailable_skill_mcps: [],
      unavailable_mcps: [],
      iterations: 0,
      stop_reason: 'quota',
      workflow_id: workflowId,
      run_id: runId,
      model: input.model ?? '',
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      step_usage: [],
      refused,
    },
  };
}
