import type { Context } from '@temporalio/activity';
import { ConfigurationError } from '../errors.ts';
import type { CheckGuardrailInput, RecordedVerdict } from './recorded.ts';
import type { RegisteredGuardrails } from './registered.ts';
import type { GuardrailContext } from './types.ts';
import { recordedVerdict } from './verdict.ts';

/**
 * One input or output check of a run (the `checkGuardrail` activity): looked up by its agent and
 * name, asked, and its answer recorded as the activity's result, so a replay or a retried workflow
 * task never asks it again. A check that throws is retried as any activity is.
 */
export async function checkGuardrail(
  agent: string,
  guardrails: RegisteredGuardrails | undefined,
  input: CheckGuardrailInput,
  context: Pick<Context, 'info' | 'cancellationSignal' | 'heartbeat'>,
): Promise<RecordedVerdict> {
  // A check may call a model: heartbeats notice a worker that dies in it, and carry cancellation.
  const beat = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), 1_000);
  try {
    return await ask(agent, guardrails, input, context);
  } finally {
    clearInterval(beat);
  }
}

async function ask(
  agent: string,
  guardrails: RegisteredGuardrails | undefined,
  input: CheckGuardrailInput,
  context: Pick<Context, 'info' | 'cancellationSignal'>,
): Promise<RecordedVerdict> {
  const checks = input.kind === 'input' ? guardrails?.input : guardrails?.output;
  const guardrail = checks?.get(input.name);
  if (!guardrail)
    throw new ConfigurationError(
      `Agent "${agent}" has no ${input.kind} guardrail named "${input.name}" on this worker. ` +
        'Run the agent on workers that all define the same guardrails.',
    );
  const ctx = guardrailContext(agent, input.tenant, context);
  if (input.kind === 'input') {
    const { prompt } = input.subject as { prompt: string };
    return recordedVerdict(
      'input',
      guardrail.name,
      await (guardrail.check as (p: string, c: GuardrailContext) => unknown)(prompt, ctx),
    );
  }
  const answer = input.subject as { text: string; output?: unknown };
  return recordedVerdict(
    'output',
    guardrail.name,
    await (guardrail.check as (a: unknown, c: GuardrailContext) => unknown)(answer, ctx),
  );
}

/** What a check is told of the run, from its activity. */
export function guardrailContext(
  agent: string,
  tenant: string | undefined,
  context: Pick<Context, 'info' | 'cancellationSignal'>,
): GuardrailContext {
  return {
    agent,
    workflowId: context.info.workflowExecution?.workflowId ?? '',
    runId: context.info.workflowExecution?.runId ?? '',
    ...(tenant !== undefined ? { tenant } : {}),
    signal: context.cancellationSignal,
  };
}
