import { CancellationScope, workflowInfo } from '@temporalio/workflow';
import type { AgentResult, AgentRunInput, ResolvedRun, ResolveRunInput } from '../common/run.ts';
import type { Emit, EventLog } from './event-log.ts';
import { isQuotaFailure } from '../usage/failure-type.ts';
import { ledgerActivities, opensWithStep, resolveRunActivities } from './quick-activities.ts';
import { openingStep, openTurn, warnUnavailableMcps, type OpenedTurn } from './opening-step.ts';
import { turnDeadlineAt } from '../common/deadline.ts';
import { RunControl } from './run-control.ts';
import { RunLoop, type LoopOutcome } from './run-loop.ts';
import { completeRunLine, runLineSoFar } from '../usage/run-line.ts';
import { showEnd, showFailure, showTripped } from '../visibility/current-details.ts';
import { DEFAULT_OUTPUT_REPAIRS, type OutputSpec } from '../output/types.ts';
import { TurnGuardrails } from '../guardrails/workflow-checks.ts';
import { emitRecalled } from '../agent-memory/workflow-memory.ts';

export interface TurnOptions {
  /** Continue a stored conversation at this position (a chat session's next turn). */
  startSeq?: number;
  /** Added to every event's payload (`turn_id` of a chat turn, `phase` of a deep run). */
  tags?: Record<string, unknown>;
  /** A turn that only writes (a plan, a verdict): the model gets no tools, and answers in text. */
  noTools?: boolean;
  /** The run's outside controls (cancel, deadline, approvals); default: a control of this turn alone. */
  control?: RunControl;
  /** Store the answering agent with each answer (a chat session whose conversation was handed off). */
  labelAgent?: boolean;
  /**
   * A run or chat turn started from outside: checked against the tenant's start quotas and counted
   * as a run in the usage ledger. With `release` (its last turn), its concurrency slot is freed at the end.
   */
  admit?: { release: boolean };
  /**
   * What the input guardrails check (default: the turn's prompt in a turn with tools, nothing in one
   * without); `false`: nothing. A deep run checks the user's prompt in its plan phase, whose stored
   * prompt is `prefix` and the user's.
   */
  guardInput?: { prompt: string; prefix?: string } | false;
  /** Told the prompt an input guardrail replaced (a deep run's later phases go on with it). */
  onReplacedPrompt?: (prompt: string) => void;
}

/** What a turn's workflow needs of it beside its result: where its conversation stands, whose memory it used. */
export interface TurnEnd {
  messageCount: number;
  /** The turn's long-term memory (its resource), when the agent has memory and the turn a resource. */
  memory?: ResolvedRun['memory'];
}

/**
 * One prompt answered: resolve the turn (model, skills, tools, limits, opening messages), run the
 * loop under the run's control (its deadline starts here), emit `run_completed` — or `run_cancelled`
 * when it was cancelled or passed its deadline. A run is one turn; a chat session runs one per `send`, continuing its
 * stored conversation from `session.startSeq`.
 */
export async function runTurn(
  input: AgentRunInput,
  conversationId: string,
  events: EventLog,
  options: TurnOptions = {},
): Promise<AgentResult<unknown> & TurnEnd> {
  const tags = options.tags ?? {};
  const { workflowId, runId } = workflowInfo();
  const opening = opensWithStep();
  const ledger = ledgerActivities();
  const startedAt = Date.now();
  const emit: Emit = (type, message, payload = {}) => events.emit(type, message, { ...payload, ...tags });
  const resolve: ResolveRunInput = {
    agent: input.agent,
    conversationId,
    prompt: input.prompt,
    maxIterations: input.maxIterations,
    skills: input.skills,
    model: input.model,
    ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
    ...(options.startSeq !== undefined ? { startSeq: options.startSeq } : {}),
    ...(options.noTools ? { noTools: true } : {}),
    ...(tags.phase === 'plan' || tags.phase === 'execute' ? { deepPhase: tags.phase } : {}),
    ...(options.admit && ledger ? { admit: true } : {}),
    ...(input.caching !== undefined ? { caching: input.caching } : {}),
    ...(input.guardrails !== undefined ? { guardrails: input.guardrails } : {}),
    ...(input.parent ? { parentAgent: input.parent.agent } : {}),
  };
  const control = options.control ?? new RunControl();
  // Each model step carries the line so far, so the answering step can write it.
  const line = {
    startSeq: options.startSeq ?? 0,
    startedAt,
    counted: options.admit !== undefined,
    release: options.admit?.release ?? false,
  };
  let opened: OpenedTurn;
  try {
    opened = opening
      ? await openTurn(
          {
            resolve,
            step: openingStep(input, control, {
              startedAt,
              labelAgent: options.labelAgent,
              runLine: ledger ? runLineSoFar(line, { subRuns: 0, toolCalls: {} }) : undefined,
            }),
          },
          control,
          emit,
          tags,
        )
      : { plan: await resolveRunActivities().resolveRun(resolve), started: false };
  } catch (error) {
    showFailure(error, 0, tags);
    // Admitted, then failed further on (an unknown skill): free the slot. A refused run holds none.
    if (options.admit && ledger && !isQuotaFailure(error)) await releaseSlot(input.agent);
    throw error;
  }
  const { plan } = opened;
  if (plan.unavailable_mcps?.length && !opened.started) warnUnavailableMcps(emit, plan.unavailable_mcps);
  emitRecalled(emit, plan.memory);
  // The deadline counts from the turn's start; a turn opened with a step learns the agent's own after it.
  const from = opening ? startedAt : Date.now();
  const deadlineAt = turnDeadlineAt(from, input.timeoutMs ?? plan.timeoutMs, input.parent?.deadlineAt);
  if (deadlineAt !== undefined) control.watchDeadline(Math.max(1, deadlineAt - from), from, opened.outOfTime);
  const spec = options.noTools ? undefined : outputSpec(input, plan.output);
  const guardInput = options.guardInput ?? (options.noTools ? false : { prompt: input.prompt });
  const checks = plan.guardrails && new TurnGuardrails(plan.guardrails, plan.timeouts, input.tenant);
  const loop = new RunLoop({
    input,
    plan,
    conversationId,
    events,
    control,
    tags,
    output: spec,
    labelAgent: options.labelAgent,
    runLine: ledger ? line : undefined,
    opened,
    guardrails: checks && {
      checks: options.noTools ? checks.withoutOutput() : checks,
      prompt: guardInput === false ? undefined : guardInput.prompt,
      prefix: guardInput === false ? undefined : guardInput.prefix,
    },
  });
  const run = loop.state;
  let outcome: LoopOutcome;
  try {
    outcome = await loop.run();
  } catch (error) {
    showFailure(error, run.iterations, tags);
    if (options.admit && ledger) await releaseSlot(input.agent);
    throw error;
  }
  if (loop.replacedPrompt !== undefined) options.onReplacedPrompt?.(loop.replacedPrompt);
  // Written by the answering model step (the common end), else here, at the end.
  if (ledger && !run.runRecorded) {
    const record = completeRunLine(
      runLineSoFar(line, run.runLineCounts),
      { agent: input.agent, tenant: input.tenant, model: run.plan.model, conversationId },
      Date.now(),
    );
    // Recorded also when the turn was cancelled (its parent stopped): a cancelled scope must not skip it.
    await CancellationScope.nonCancellable(() => ledger.recordRun(record));
  }
  const { stopReason, iterations, stopMessage } = outcome;
  // A structured run's output is the checked object (undefined when it stopped without one).
  const output = loop.answer ? outcome.value : outcome.output;
  const structured = loop.answer
    ? {
        text: outcome.output,
        output_repairs: loop.answer.repairs,
        ...(outcome.outputFailure ? { output_error: outcome.outputFailure } : {}),
      }
    : {};
  if (!options.control) control.finish();
  if (outcome.guardrail) showTripped(outcome.guardrail, iterations, tags);
  else showEnd(stopReason, iterations, tags);
  if (stopReason === 'cancelled' || stopReason === 'deadline') {
    // The last event of a stopped turn: in-flight work was cancelled, its calls answered.
    events.emit('run_cancelled', stopMessage ?? 'Run cancelled', {
      reason: stopMessage,
      stop_reason: stopReason,
      output,
      iterations,
      ...tags,
    });
  } else {
    events.emit('run_completed', stopMessage ? `Run stopped: ${stopMessage}` : 'Run completed', {
      output,
      stop_reason: stopReason,
      iterations,
      usage: run.usage,
      model: run.plan.model,
      used_skills: run.skills.metadata.used_skills,
      used_skill_tools: run.skills.metadata.used_skill_tools,
      ...(loop.answer ? { text: outcome.output } : {}),
      ...(outcome.outputFailure ? { output_error: outcome.outputFailure } : {}),
      ...(stopMessage ? { reason: stopMessage } : {}),
      ...(outcome.guardrail ? { guardrail: outcome.guardrail } : {}),
      ...tags,
    });
  }
  return {
    output,
    messageCount: run.seq,
    ...(plan.memory ? { memory: plan.memory } : {}),
    metadata: {
      ...run.skills.metadata,
      unavailable_skill_mcps: plan.unavailable_skill_mcps ?? [],
      unavailable_mcps: plan.unavailable_mcps ?? [],
      iterations,
      stop_reason: stopReason,
      workflow_id: workflowId,
      run_id: runId,
      model: run.plan.model,
      usage: run.usage,
      tool_calls: run.toolCalls,
      ...(run.subRuns.length ? { sub_runs: run.subRuns } : {}),
      ...(run.handoffs.length ? { handoffs: run.handoffs } : {}),
      ...(run.handoffs.length || options.labelAgent ? { agent: run.agent } : {}),
      step_usage: run.stepUsage,
      ...(run.taskPlan ? { plan: run.taskPlan } : {}),
      ...(run.context ? { context: run.context } : {}),
      ...structured,
      ...(outcome.guardrail ? { guardrail: outcome.guardrail } : {}),
      ...(loop.guardrailRetries ? { guardrail_retries: loop.guardrailRetries } : {}),
    },
  };
}

/**
 * Frees the concurrency slot of a run that failed or was cancelled (not cancellable itself, so a
 * cancelled run still frees it). A crashed or terminated run's slot is freed by the next admission
 * that finds it no longer running.
 */
export async function releaseSlot(agent: string): Promise<void> {
  const ledger = ledgerActivities();
  if (ledger) await CancellationScope.nonCancellable(() => ledger.releaseRun({ agent }));
}

/** A structured turn's schema and repairs: the run's own `output` wins over the agent's. */
function outputSpec(input: AgentRunInput, agentOutput: OutputSpec | undefined): OutputSpec | undefined {
  const schema = input.output ?? agentOutput?.schema;
  if (!schema) return undefined;
  return { schema, repairs: input.outputRepairs ?? agentOutput?.repairs ?? DEFAULT_OUTPUT_REPAIRS };
}
