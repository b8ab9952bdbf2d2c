import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { OpenedRun, OpenRunInput } from '../common/opening.ts';
import { modelStepInput } from '../common/step-input.ts';
import { callModel } from './call-model.ts';
import { toApplicationFailure } from './failures.ts';
import { wrappedModelStep } from './model-step-wrappers.ts';
import type { RegisteredAgent } from './registered-agent.ts';
import { resolveRun } from './resolve-run.ts';
import type { RegisteredGuardrails } from '../guardrails/registered.ts';
import { turnDeadlineAt } from '../common/deadline.ts';

/**
 * The longest first model step an opening step takes itself: its activity's start-to-close is an
 * hour, set before the agent's timeouts are known; an agent whose model steps may take longer has
 * its first step taken as a step of its own.
 */
const OPENING_STEP_MAX_MODEL_MS = 50 * 60_000;

/**
 * A turn's opening step: resolves the run (`resolveRun`: model, skills, tools, limits, opening
 * messages), then takes its first model step in the same activity, bounded by the agent's model
 * timeout and the turn's deadline. The plan is returned whatever becomes of the step, which this
 * activity never retries: a step that failed comes back as `failure` (the workflow takes it again
 * with the agent's attempts left, or fails the run), one that would pass the deadline or was
 * stopped comes back untaken, and a request that did not fit as the step's `overflow`, for the
 * workflow to compact. Its first live text says what the workflow does not know yet
 * (`TextDeltaSignal.opening`).
 */
export async function openRun(
  agent: RegisteredAgent,
  input: OpenRunInput,
  context: Context,
  guarded?: { owner: string; guardrails: RegisteredGuardrails },
): Promise<OpenedRun> {
  const plan = await resolveRun(agent, input.resolve, context, guarded);
  const { resolve, step } = input;
  const deadlineAt = turnDeadlineAt(step.startedAt, step.timeoutMs ?? plan.timeoutMs, step.deadlineAt);
  const modelMs = agent.timeouts.modelStartToCloseMs;
  const passed = (): boolean => deadlineAt !== undefined && deadlineAt <= Date.now();
  if (passed()) return { plan, outOfTime: true };
  if (modelMs > OPENING_STEP_MAX_MODEL_MS || context.cancellationSignal.aborted) return { plan };
  // Input guardrails are asked by the workflow (their verdicts recorded), before or beside the first step.
  if (plan.guardrails?.input) return { plan };
  const leftMs = deadlineAt === undefined ? modelMs : Math.min(modelMs, deadlineAt - Date.now());
  const output = resolve.noTools ? undefined : (step.output ?? plan.output?.schema);
  const first = modelStepInput({
    agent: resolve.agent,
    plan,
    conversationId: resolve.conversationId,
    seq: plan.messageCount,
    tools: plan.tools,
    ...(resolve.noTools ? {} : { frontendTools: step.frontendTools }),
    ...(resolve.tenant !== undefined ? { tenant: resolve.tenant } : {}),
    labelAgent: step.labelAgent === true || plan.delegation?.handoffs !== undefined,
    ...(output ? { output } : {}),
    ...(step.runLine ? { runLine: step.runLine } : {}),
  });
  const bound = AbortSignal.timeout(leftMs);
  try {
    const taken = await wrappedModelStep(first, () =>
      callModel(agent, first, context, {
        signal: AbortSignal.any([context.cancellationSignal, bound]),
        header: {
          maxIterations: plan.maxIterations,
          ...(plan.unavailable_mcps?.length ? { unavailable_mcps: plan.unavailable_mcps } : {}),
        },
      }),
    );
    // A step that did not fit (`overflow`) is the workflow's to compact and take again.
    return { plan, step: taken };
  } catch (error) {
    // Stopped: the loop ends the run. Past the turn's deadline: the workflow stops the run. Past the
    // model timeout: a failed attempt, as a `callModel` past its start-to-close is.
    if (context.cancellationSignal.aborted) return { plan };
    if (bound.aborted && passed()) return { plan, outOfTime: true };
    const failure = bound.aborted
      ? ApplicationFailure.retryable(`The model step took longer than its ${modelMs} ms timeout.`, 'Timeout')
      : toApplicationFailure(error);
    context.log.info(
      `The first model step of the run failed in its opening step: ${failure.type}: ${failure.message.split('\n')[0]}`,
    );
    return {
      plan,
      failure: {
        message: failure.message,
        type: failure.type ?? 'Error',
        retryable: !failure.nonRetryable,
        ...(typeof failure.nextRetryDelay === 'number' ? { retryAfterMs: failure.nextRetryDelay } : {}),
      },
    };
  }
}
