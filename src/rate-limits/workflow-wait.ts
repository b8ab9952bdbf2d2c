import { ApplicationFailure, sleep } from '@temporalio/workflow';
import type { AgentEventType } from '../common/events.ts';
import type { ToolCall } from '../common/messages.ts';
import type { ToolOutcome } from '../common/run.ts';
import { LONG_RATE_LIMIT_TYPE, MAX_RATE_LIMIT_WAITS } from './types.ts';

/** What {@link waitOutRateLimits} needs of the loop. */
export interface RateLimitWaitContext {
  call: ToolCall;
  /** The run's deadline (workflow time), if it has one. */
  deadlineAt: number | undefined;
  emit: (type: AgentEventType, message: string, payload: Record<string, unknown>) => void;
}

/**
 * Runs a tool call; when the provider rate-limited it with a long Retry-After, emits `tool_waiting`
 * and waits on a durable timer (no activity, no worker slot: the run may even move to another
 * worker meanwhile), then makes the same call again. Returns the last outcome: one that is still
 * `rateLimited` was given up, because waiting would pass the run's deadline or the call waited
 * {@link MAX_RATE_LIMIT_WAITS} times; the model is then told of the rate limit.
 */
export async function waitOutRateLimits(
  context: RateLimitWaitContext,
  invoke: () => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const { call, deadlineAt, emit } = context;
  for (let waits = 0; ; waits++) {
    const outcome = await invoke();
    const limited = outcome.rateLimited;
    if (!limited || waits >= MAX_RATE_LIMIT_WAITS) return outcome;
    const resumeAt = Date.now() + limited.retryAfterMs;
    if (deadlineAt !== undefined && resumeAt >= deadlineAt) return outcome;
    const seconds = Math.ceil(limited.retryAfterMs / 1000);
    emit(
      'tool_waiting',
      `${call.name} was rate-limited by its provider: waiting ${seconds} s before calling again`,
      {
        tool: call.name,
        call_id: call.id,
        reason: 'rate_limit',
        retry_after_ms: limited.retryAfterMs,
        resume_at: new Date(resumeAt).toISOString(),
        wait: waits + 1,
      },
    );
    await sleep(limited.retryAfterMs);
  }
}

/** What the model is told of a call given up on: the provider's message and why the run did not wait. */
export function rateLimitAnswer(outcome: ToolOutcome, deadlineAt: number | undefined): string {
  const limited = outcome.rateLimited!;
  const seconds = Math.ceil(limited.retryAfterMs / 1000);
  const why =
    deadlineAt !== undefined && Date.now() + limited.retryAfterMs >= deadlineAt
      ? `waiting the ${seconds} s it asked for would pass the run's deadline`
      : `it was still rate-limited after ${MAX_RATE_LIMIT_WAITS} waits`;
  return `${limited.message} (not called again: ${why}).`;
}

/** What a model step's wait needs of the run: its deadline now (workflow time), and its events. */
export interface ModelWaitContext {
  deadlineAt: () => number | undefined;
  emit: RateLimitWaitContext['emit'];
}

/**
 * Asks for a model step; when the provider rate-limited it with a long Retry-After (the activity
 * failed with {@link LONG_RATE_LIMIT_TYPE} instead of retrying), emits `model_waiting` and waits on
 * a durable timer, as a tool call does, then asks again. Gives up (the failure fails the step) when
 * waiting would pass the run's deadline or the step waited {@link MAX_RATE_LIMIT_WAITS} times.
 */
export async function waitOutModelRateLimits<T>(
  context: ModelWaitContext,
  ask: () => Promise<T>,
): Promise<T> {
  for (let waits = 0; ; waits++) {
    try {
      return await ask();
    } catch (error) {
      const retryAfterMs = longRateLimitOf(error);
      if (retryAfterMs === undefined || waits >= MAX_RATE_LIMIT_WAITS) throw error;
      const resumeAt = Date.now() + retryAfterMs;
      const deadlineAt = context.deadlineAt();
      if (deadlineAt !== undefined && resumeAt >= deadlineAt) throw error;
      const seconds = Math.ceil(retryAfterMs / 1000);
      context.emit(
        'model_waiting',
        `The model provider rate-limited the step: waiting ${seconds} s before asking again`,
        {
          reason: 'rate_limit',
          retry_after_ms: retryAfterMs,
          resume_at: new Date(resumeAt).toISOString(),
          wait: waits + 1,
        },
      );
      await sleep(retryAfterMs);
    }
  }
}

/** The Retry-After of a model step's long rate limit in `error` (or its causes); undefined for any other failure. */
function longRateLimitOf(error: unknown): number | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && e.type === LONG_RATE_LIMIT_TYPE) {
      const ms = (e.details?.[0] as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
      return typeof ms === 'number' ? ms : undefined;
    }
  }
  return undefined;
}
