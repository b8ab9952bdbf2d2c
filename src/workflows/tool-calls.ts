import { inheritedFrom } from '../common/step-input.ts';
import { emitMemoryToolEvent } from '../agent-memory/workflow-memory.ts';
import type { GuardrailTrip } from '../guardrails/recorded.ts';
import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { toolErrorText, toolResultMessage, type ToolCall } from '../common/messages.ts';
import type { ResolvedRun, ToolOutcome } from '../common/run.ts';
import type { CarriedCalls, CarriedOutcome } from '../common/model-step.ts';
import type { storeActivities, toolActivities } from './quick-activities.ts';
import type { CallEffect, PlacedCall, RunView, TurnSetting } from './run-state.ts';
import { askApproval, callNeedsApproval } from './tool-approval.ts';
import { invokeUntilAuthorized, type AuthorizedCallContext } from './authorization-wait.ts';
import { ToolCallRoutes } from './tool-call-routes.ts';
import { rateLimitAnswer, waitOutRateLimits } from '../rate-limits/workflow-wait.ts';
import { delegate, type Delegation } from '../subagents/workflow-delegate.ts';
import { SiblingBudgets } from '../subagents/workflow-sibling-budgets.ts';
import { notTransferred, type PendingHandoff } from '../subagents/workflow-handoff.ts';
import { frontendCallIds } from '../frontend-tools/workflow-frontend-calls.ts';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from '../common/control.ts';

/** What the calls need of the turn whose steps asked for them (src/workflows/run-loop.ts). */
export interface ToolCallsOptions {
  readonly setting: TurnSetting;
  /** The run as it stands: its agent and plan (another's after a handoff), skills, budgets spent. */
  readonly run: RunView;
  /** Applies what a settled call changed to the run (the loop's). */
  readonly settled: (effect: CallEffect) => void;
  readonly tools: ReturnType<typeof toolActivities>;
  readonly store: ReturnType<typeof storeActivities>;
}

/**
 * The tool calls of a turn's steps (docs/architecture.md): where each runs, what it waits for first
 * (approval, a user's grant, a rate limit), and how it is settled: its result stored in call order,
 * its events emitted, and what it changed (tools, skills, the plan) handed to the loop. A call that
 * never ran is answered with why, so every call is followed by its result.
 */
export class ToolCalls {
  readonly #setting: TurnSetting;
  readonly #run: RunView;
  readonly #effect: (effect: CallEffect) => void;
  /** What a sub-agent call needs of this run: what the calls need (src/subagents/workflow-delegate.ts). */
  readonly #delegation: Delegation;
  /** Where each tool call runs: its rate-limited queue, locally (fast tools), or as an activity. */
  readonly #routes: ToolCallRoutes;
  readonly #storeActivities: ReturnType<typeof storeActivities>;
  /** Calls of the current step whose result is not stored yet, with their positions. */
  readonly #unanswered = new Map<string, PlacedCall>();
  /** A transfer asked for in the current step. */
  #handoff: PendingHandoff | undefined;
  /** The first tool guardrail that tripped on a call of this step. */
  #trip: GuardrailTrip | undefined;
  /** Whether the live text of the step in flight said what became of the calls it carried. */
  #shownCarried = false;

  constructor(options: ToolCallsOptions) {
    this.#setting = options.setting;
    this.#run = options.run;
    this.#effect = options.settled;
    this.#routes = new ToolCallRoutes(options.run.plan, options.tools, options.setting.input.tenant);
    this.#storeActivities = options.store;
    this.#delegation = options;
  }

  /** The plan whose fast tools and queues route the next calls (a handoff brings another agent's). */
  use(plan: ResolvedRun): void {
    this.#routes.use(plan);
  }

  /** The step's calls wait for their results from now on (a stop answers those still waiting). */
  begin(calls: readonly PlacedCall[]): void {
    for (const entry of calls) this.#unanswered.set(entry.call.id, entry);
  }

  /**
   * Runs the step's calls in parallel, each after its approval when it needs one; a call of a
   * frontend tool waits for the client's result instead.
   */
  async run(calls: readonly PlacedCall[]): Promise<void> {
    const subAgents = this.#run.plan.delegation?.subAgents ?? {};
    const siblings = new SiblingBudgets(calls.filter(({ call }) => subAgents[call.name]).length);
    const onClient = frontendCallIds(calls, this.#setting.input.frontendTools);
    await allSettled(
      calls.map(({ call, seq }) =>
        onClient.includes(call.id)
          ? this.#runOnClient(call, seq, onClient)
          : this.#runTool(call, seq, siblings),
      ),
    );
  }

  /** The transfer the step asked for, once its other calls are done (taken: it is carried out once). */
  /** A tool guardrail that tripped on a settled call (the run ends), once. */
  takeTrip(): GuardrailTrip | undefined {
    const trip = this.#trip;
    this.#trip = undefined;
    return trip;
  }

  takeHandoff(): PendingHandoff | undefined {
    const handoff = this.#handoff;
    this.#handoff = undefined;
    return handoff;
  }

  /** A call answered outside (a transfer carried out). */
  answered(callId: string): void {
    this.#unanswered.delete(callId);
  }

  /** Answers every call still waiting with `content` (after a stop). */
  answerWaiting(content: string): Promise<void> {
    return this.answer([...this.#unanswered.values()], content);
  }

  /** Stores `content` as the result of each call (a failed call's by default), at the call's position. */
  async answer(calls: readonly PlacedCall[], content: string, isError = true): Promise<void> {
    await Promise.all(
      calls.map(({ call, seq }) =>
        this.#storeActivities.appendMessages({
          agent: this.#run.agent,
          conversationId: this.#setting.conversationId,
          seq,
          messages: [toolResultMessage(call, content, isError)],
        }),
      ),
    );
    for (const { call } of calls) this.#unanswered.delete(call.id);
  }

  /** A `transfer_to_<agent>` call: carried out after the step's other calls (one per step). */
  async #transfer(call: ToolCall, seq: number, target: string): Promise<void> {
    const why = notTransferred(this.#handoff, this.#run.handoffs.length);
    if (why) return this.answer([{ call, seq }], `Not transferred: ${why}.`);
    this.#handoff = { target, call, seq };
  }

  /** How a call that needs the user's grant waits (authorization-wait.ts). */
  #authorizing(call: ToolCall): AuthorizedCallContext {
    return {
      authorizations: this.#setting.control.authorizations,
      settings: this.#run.plan.authorization,
      call,
      agent: this.#setting.input.agent,
      emit: (type, message, payload) => this.#setting.emit(type, message, payload),
      stop: (message) => this.#setting.control.requestStop('authorization_timeout', message),
    };
  }

  async #runTool(call: ToolCall, seq: number, siblings: SiblingBudgets): Promise<void> {
    const delegation = this.#run.plan.delegation;
    const handoff = delegation?.handoffs?.[call.name];
    if (handoff) return this.#transfer(call, seq, handoff.agent);
    // Sub-agent calls and tool calls wait for approval alike.
    if (
      await callNeedsApproval(this.#run.plan, call, {
        agent: this.#run.agent,
        tenant: this.#setting.input.tenant,
      })
    ) {
      const emit = this.#setting.emit;
      const decision = await askApproval(
        this.#setting.control.approvals,
        call,
        this.#run.plan.approval!.timeoutMs,
        emit,
      );
      if (!decision.approved) {
        await this.answer([{ call, seq }], `declined: ${decision.reason}`);
        return;
      }
    }
    const sub = delegation?.subAgents?.[call.name];
    if (sub) {
      await delegate(this.#delegation, { call, seq }, sub, siblings);
      this.#unanswered.delete(call.id);
      return;
    }
    this.called(call);
    return this.#invokeCall(call, seq);
  }

  /** `tool_called`: the call starts (or rides with the next model step). */
  called(call: ToolCall, extra: Record<string, unknown> = {}): void {
    this.#setting.emit('tool_called', `Calling ${call.name}`, {
      tool: call.name,
      call_id: call.id,
      args: call.args,
      ...extra,
    });
  }

  /**
   * A frontend tool call: the client runs it. Its `tool_called` names the step's frontend calls
   * (`frontend_calls`: a reader knows when it has them all), then the call waits durably for the
   * client's result (the `toolkit.toolResult` update) as long as an approval would, and the result
   * is stored as the call's.
   */
  async #runOnClient(call: ToolCall, seq: number, stepCalls: string[]): Promise<void> {
    this.called(call, { frontend_calls: stepCalls });
    const timeoutMs = this.#run.plan.approval?.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    const result = await this.#setting.control.frontendCalls.wait(call, timeoutMs);
    if (!result) {
      const why = `The client sent no result within ${Math.round(timeoutMs / 1000)} s.`;
      return this.failed(call, seq, toolErrorText('ToolResultTimeout', why), why, 'ToolResultTimeout');
    }
    if (result.error !== undefined) {
      const content = toolErrorText(
        'FrontendToolError',
        [result.error, result.content].filter(Boolean).join('\n'),
      );
      return this.failed(call, seq, content, result.error, 'FrontendToolError');
    }
    await this.answer([{ call, seq }], result.content, false);
    this.#completed(call, {
      preview: result.content.slice(0, FRONTEND_PREVIEW_CHARS),
      chars: result.content.length,
      truncated: false,
    });
  }

  /** Runs a call where it runs (its queue, locally, an activity), waiting for grants and rate limits, and settles it. */
  async #invokeCall(call: ToolCall, seq: number, attemptBase?: number): Promise<void> {
    try {
      const input = {
        agent: this.#run.agent,
        conversationId: this.#setting.conversationId,
        seq,
        call,
        tenant: this.#setting.input.tenant,
        ...(this.#run.skills.tools.length ? { skillTools: [...this.#run.skills.tools] } : {}),
        ...(this.#run.plan.guardrails?.tool_names
          ? { guardrails: this.#run.plan.guardrails.tool_names }
          : {}),
        ...inheritedFrom(this.#run.plan, this.#run.agent),
        model: this.#run.plan.model,
        ...(attemptBase ? { attemptBase } : {}),
      };
      const invoke = () => this.#routes.invoke(input);
      const waiting = { call, deadlineAt: this.#setting.control.deadlineAt, emit: this.#setting.emit };
      const outcome = await invokeUntilAuthorized(this.#authorizing(call), () =>
        waitOutRateLimits(waiting, invoke),
      );
      if (!('notAuthorized' in outcome) && outcome.rateLimited) {
        const message = rateLimitAnswer(outcome, this.#setting.control.deadlineAt);
        return this.failed(call, seq, toolErrorText('RateLimitError', message), message, 'RateLimitError');
      }
      if ('notAuthorized' in outcome) {
        const why = outcome.notAuthorized;
        return this.failed(call, seq, why, why, 'AuthorizationTimeout');
      }
      this.#settle(call, outcome, true);
    } catch (error) {
      // A cancelled call is answered by the stop (#stopped), not as a failure.
      if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
      const cause = error.cause;
      const message = cause?.message ?? error.message;
      const errorType = cause instanceof ApplicationFailure ? (cause.type ?? 'Error') : 'Error';
      await this.failed(call, seq, toolErrorText(errorType, message), message, errorType);
    }
  }

  /** A call whose result is stored: the tools and skills it loaded, the plan it wrote, and its event (unless shown). */
  #settle(call: ToolCall, outcome: ToolOutcome, show: boolean): void {
    if (outcome.guardrail) this.#trip ??= outcome.guardrail;
    this.#effect({ kind: 'tool', call, outcome });
    if (show) this.#completed(call, outcome);
    this.#unanswered.delete(call.id);
  }

  #completed(call: ToolCall, outcome: ToolOutcome): void {
    const size = outcome.truncated ? `${outcome.chars} characters, truncated` : `${outcome.chars} characters`;
    this.#setting.emit('tool_completed', `${call.name} completed (${size})`, {
      tool: call.name,
      call_id: call.id,
      output: outcome.preview,
      truncated: outcome.truncated,
      ...(outcome.metadata ? { metadata: outcome.metadata } : {}),
    });
    emitMemoryToolEvent(this.#setting.emit, call, outcome);
  }

  /**
   * What became of the calls a model step carried: each settled as a call of its own would be
   * (events unless its live text said them already); those it left to the workflow run again as
   * fast calls, their writes counting on from the step's attempt. A call it said nothing of (the
   * step was stopped first) is answered by the stop. Returns the calls run again, or undefined when
   * none is (no promise to wait for: the common case costs the workflow none).
   */
  settleCarried(carried: CarriedCalls, outcomes: CarriedOutcome[]): Promise<void> | undefined {
    const shown = this.#shownCarried;
    this.#shownCarried = false;
    const retries: Array<Promise<void>> = [];
    for (const outcome of outcomes) {
      const entry = carried.calls.find(({ call }) => call.id === outcome.callId);
      if (!entry) continue;
      if ('outcome' in outcome) this.#settle(entry.call, outcome.outcome, !shown);
      else if ('failure' in outcome) {
        if (!shown) this.#toolFailed(entry.call, outcome.failure.message, outcome.failure.type);
        this.#unanswered.delete(entry.call.id);
      } else retries.push(this.#invokeCall(entry.call, entry.seq, outcome.retry.attempt));
    }
    return retries.length ? allSettled(retries) : undefined;
  }

  /**
   * The events of carried calls, said by the step's live text before the step has returned (its
   * first batch only: answers whether this one said them).
   */
  showCarried(carried: CarriedCalls, outcomes: CarriedOutcome[]): boolean {
    if (this.#shownCarried) return false;
    this.#shownCarried = true;
    for (const outcome of outcomes) {
      const entry = carried.calls.find(({ call }) => call.id === outcome.callId);
      if (!entry) continue;
      if ('outcome' in outcome) this.#completed(entry.call, outcome.outcome);
      else if ('failure' in outcome)
        this.#toolFailed(entry.call, outcome.failure.message, outcome.failure.type);
    }
    return true;
  }

  /** A call that failed for good: `content` is its result for the model, and `tool_failed` says why. */
  async failed(
    call: ToolCall,
    seq: number,
    content: string,
    error: string,
    errorType: string,
  ): Promise<void> {
    await this.answer([{ call, seq }], content);
    this.#toolFailed(call, error, errorType);
  }

  #toolFailed(call: ToolCall, error: string, errorType: string): void {
    this.#setting.emit('tool_failed', `${call.name} failed: ${error}`, {
      tool: call.name,
      call_id: call.id,
      error,
      error_type: errorType,
    });
  }
}

/** The longest result a frontend call's `tool_completed` shows (the whole is stored). */
const FRONTEND_PREVIEW_CHARS = 2_000;

/** Waits until every call has ended (none is left running), then throws the first failure, if any. */
async function allSettled(calls: Array<Promise<void>>): Promise<void> {
  const failed = (await Promise.allSettled(calls)).find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}
