import { allHandlersFinished, condition, workflowInfo } from '@temporalio/workflow';
import type { AgentResult, AgentRunOutput } from '../common/run.ts';
import type { Usage } from '../common/messages.ts';
import { addUsage } from '../subagents/workflow-limits.ts';
import {
  parseVerdict,
  PLAN_PROMPT,
  VERIFY_PROMPT,
  type DeepAgentResult,
  type DeepAgentRunInput,
  type Verification,
} from '../common/deep.ts';
import { setControlHandlers } from './control-handlers.ts';
import { EventLog } from './event-log.ts';
import { failedWithEvents } from './failed-run.ts';
import { refusedRun } from './refused-run.ts';
import { RunControl } from './run-control.ts';
import { releaseSlot, runTurn } from './turn.ts';
import { recordSdkFlags } from './sdk-flags.ts';
import { checkWorkflowInput } from '../contract/check-input.ts';

/**
 * DeepAgent (docs/chat.md): plan (a model step that writes a short plan, no tools), execute
 * (the agent on the task and its plan, with the same skills), and with `verify` a check of the
 * answer against the task, revised at most once. Each phase's events carry `phase`; the plan and
 * the verdict are in the final `run_completed` and in the result's metadata.
 */
export async function deepAgentRun(
  input: DeepAgentRunInput,
): Promise<AgentRunOutput<DeepAgentResult<unknown>>> {
  recordSdkFlags();
  checkWorkflowInput('deepAgentRun', input);
  const events = new EventLog();
  try {
    return await deepRun(input, events);
  } catch (error) {
    // A failed run's events travel in its failure, as a completed run's travel in its result.
    throw failedWithEvents(error, events);
  } finally {
    if (!input.parent) await releaseSlot(input.agent);
  }
}

async function deepRun(
  input: DeepAgentRunInput,
  events: EventLog,
): Promise<AgentRunOutput<DeepAgentResult<unknown>>> {
  const control = new RunControl();
  setControlHandlers(() => control, 'run');
  const { workflowId } = workflowInfo();
  events.emit('run_started', `Deep run started: agent "${input.agent}"`, {
    agent: input.agent,
    workflow_id: workflowId,
    verify: Boolean(input.verify),
  });

  let planned: Awaited<ReturnType<typeof runTurn>>;
  let task = input.prompt;
  try {
    planned = await runTurn(
      { ...input, prompt: `${PLAN_PROMPT}${input.prompt}`, maxIterations: 1 },
      `${workflowId}/plan`,
      events,
      {
        noTools: true,
        tags: { phase: 'plan' },
        // The user's prompt is checked once, here; the later phases go on with it as the checks left it.
        guardInput: { prompt: input.prompt, prefix: PLAN_PROMPT },
        onReplacedPrompt: (prompt) => {
          task = prompt;
        },
        control,
        // The deep run counts once, from its first phase; its slot is freed when the whole run ends.
        ...(input.parent ? {} : { admit: { release: false } }),
      },
    );
  } catch (error) {
    // Refused by a quota at its start: a completed run that did nothing.
    const refused = refusedRun(error, input, events);
    if (!refused) throw error;
    control.finish();
    events.finish();
    const verification: Verification = { verdict: 'skipped', feedback: '', revised: false };
    return { ...refused, metadata: { ...refused.metadata, plan: '', verification }, events: events.closed() };
  }
  const plan = String(planned.output).trim();
  // The deep run's usage is that of all its phases (as the usage ledger counts it).
  const usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  const spend = <T extends AgentResult<unknown>>(phase: T): T => {
    addUsage(usage, phase.metadata.usage);
    return phase;
  };
  spend(planned);
  // A stop (cancel, deadline) or a guardrail's trip ends the whole deep run after the phase it stopped.
  const stopped = async (
    answer: AgentResult<unknown> & { messageCount: number },
  ): Promise<AgentRunOutput<DeepAgentResult<unknown>>> => {
    const { messageCount, ...result } = answer;
    if (answer !== planned) spend(answer);
    const verification: Verification = { verdict: 'skipped', feedback: '', revised: false };
    const trip = result.metadata.guardrail;
    if (trip)
      events.emit('run_completed', `Deep run stopped: ${trip.reason}`, {
        output: result.output,
        stop_reason: 'guardrail',
        reason: trip.reason,
        guardrail: trip,
      });
    else
      events.emit('run_cancelled', control.stopRequest?.message ?? 'Deep run stopped', {
        reason: control.stopRequest?.message,
        stop_reason: result.metadata.stop_reason,
        output: result.output,
      });
    control.finish();
    events.finish();
    await condition(allHandlersFinished);
    return {
      ...result,
      metadata: { ...result.metadata, usage, plan, verification },
      events: events.closed(),
    };
  };
  if (control.stopRequest || tripped(planned)) return stopped(planned);

  const execute = { ...input, prompt: `${task}\n\nFollow this plan:\n${plan}` };
  // Laid out as a session (system message at 0) so that a revision can continue the conversation.
  let result = await runTurn(execute, workflowId, events, {
    startSeq: 0,
    tags: { phase: 'execute' },
    control,
    guardInput: false,
  });
  if (control.stopRequest || tripped(result)) return stopped(result);
  spend(result);
  let verification: Verification = { verdict: 'skipped', feedback: '', revised: false };

  // A structured answer that never matched its schema ends the run: there is nothing to check.
  if (input.verify && result.metadata.stop_reason !== 'invalid_output') {
    const check = await runTurn(
      {
        ...input,
        prompt: `${VERIFY_PROMPT}\n\nTask:\n${task}\n\nAnswer:\n${answerText(result)}`,
        maxIterations: 1,
      },
      `${workflowId}/verify`,
      events,
      { noTools: true, tags: { phase: 'verify' }, control },
    );
    if (control.stopRequest) return stopped(check);
    spend(check);
    const verdict = parseVerdict(String(check.output));
    verification = { verdict: verdict.pass ? 'pass' : 'fail', feedback: verdict.feedback, revised: false };
    if (!verdict.pass) {
      result = await runTurn(
        {
          ...input,
          prompt: `A reviewer checked your answer and found problems:\n${verdict.feedback || '(no details)'}\n\nRevise your answer to the task.`,
        },
        workflowId,
        events,
        { startSeq: result.messageCount, tags: { phase: 'revise' }, control, guardInput: false },
      );
      if (control.stopRequest || tripped(result)) return stopped(result);
      spend(result);
      verification.revised = true;
    }
  }

  const { messageCount, ...answer } = result;
  events.emit('run_completed', 'Deep run completed', {
    output: answer.output,
    stop_reason: answer.metadata.stop_reason,
    plan,
    verification,
    ...(answer.metadata.text !== undefined ? { text: answer.metadata.text } : {}),
    ...(answer.metadata.output_error ? { output_error: answer.metadata.output_error } : {}),
  });
  control.finish();
  events.finish();
  await condition(allHandlersFinished);
  return { ...answer, metadata: { ...answer.metadata, usage, plan, verification }, events: events.closed() };
}

/** A phase a guardrail ended: the deep run ends with it. */
function tripped(phase: AgentResult<unknown>): boolean {
  return phase.metadata.stop_reason === 'guardrail';
}

/** The answer as the model wrote it: a structured answer's JSON text, else the output. */
function answerText(result: AgentResult<unknown>): string {
  return result.metadata.text ?? String(result.output);
}
