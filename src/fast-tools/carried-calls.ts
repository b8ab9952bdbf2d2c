import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { toolErrorText, toolResultMessage } from '../common/messages.ts';
import type { CallModelInput, CarriedCalls, CarriedOutcome } from '../common/model-step.ts';
import { callWriteAttempt, invokeTool, type ToolCallContext } from '../activities/invoke-tool.ts';
import type { RegisteredAgent } from '../activities/registered-agent.ts';

/**
 * The carried calls of a model step (`CallModelInput.carried`), run inside its activity before the
 * model is asked: each as a fast call's local activity would run it (its own budget, credentials
 * read here, output redacted, result stored under the call's own key), in parallel. A call that
 * overran its budget, may be cured by a retry, or needs a grant or a long wait is left to the
 * workflow (`retry`), which runs it as it runs any fast call. A stop aborts them all.
 */
export async function runCarriedCalls(
  agent: RegisteredAgent,
  input: CallModelInput,
  carried: CarriedCalls,
  context: Context,
): Promise<CarriedOutcome[]> {
  return Promise.all(carried.calls.map((entry) => runCarried(agent, input, carried, entry, context)));
}

/** Whether the step must leave the model to the workflow: a call is not settled, or changed the run's tools. */
export function carriedNeedWorkflow(outcomes: readonly CarriedOutcome[]): boolean {
  return outcomes.some(
    (o) => 'retry' in o || ('outcome' in o && (o.outcome.loadTools?.length || o.outcome.loadedSkill)),
  );
}

async function runCarried(
  agent: RegisteredAgent,
  input: CallModelInput,
  carried: CarriedCalls,
  { call, seq }: CarriedCalls['calls'][number],
  context: Context,
): Promise<CarriedOutcome> {
  const budget = AbortSignal.timeout(carried.budgetMs);
  const signal = AbortSignal.any([context.cancellationSignal, budget]);
  // The step's own heartbeats cover the call; its budget and the step's cancellation end it.
  const callContext: ToolCallContext = {
    info: { ...context.info, isLocal: true },
    cancellationSignal: signal,
    heartbeat: () => undefined,
    log: context.log,
  };
  const toolInput = {
    agent: input.agent,
    conversationId: input.conversationId,
    seq,
    call,
    ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
    ...(carried.skillTools?.length ? { skillTools: carried.skillTools } : {}),
    ...(carried.guardrails ? { guardrails: carried.guardrails } : {}),
    model: input.model,
  };
  const retry = { callId: call.id, retry: { attempt: context.info.attempt } };
  try {
    const outcome = await invokeTool(agent, toolInput, callContext);
    return outcome.authorization || outcome.rateLimited ? retry : { callId: call.id, outcome };
  } catch (error) {
    if (signal.aborted || !(error instanceof ApplicationFailure) || !error.nonRetryable) return retry;
    // The tool's own answer (bad arguments, an error no retry cures): stored as its result, as the workflow would.
    const failure = { message: error.message, type: error.type ?? 'Error' };
    await agent.memoryStore.append(
      input.conversationId,
      seq,
      [toolResultMessage(call, toolErrorText(failure.type, failure.message), true)],
      callWriteAttempt(toolInput, callContext),
    );
    return { callId: call.id, failure };
  }
}
