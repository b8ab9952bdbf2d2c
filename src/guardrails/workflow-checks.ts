import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.ts';
import type { RunTimeouts } from '../common/run.ts';
import { runPriorityOption } from '../fairness/workflow-priority.ts';
import type { CheckGuardrailInput, GuardrailPlan, GuardrailTrip, RecordedVerdict } from './recorded.ts';

export { withdrawnText } from './recorded.ts';

/** What the input checks made of a prompt: a trip, or the prompt to go on with (`replaced` when a check changed it). */
export type InputChecked = { trip: GuardrailTrip } | { prompt: string; replaced: boolean };

/** What the output checks made of an answer. */
export type OutputChecked =
  | { trip: GuardrailTrip }
  | { retry: string; check: string }
  | { answer: { text: string; output?: unknown }; replaced: boolean };

/**
 * A turn's input and output guardrails, asked from workflow code: each check is an activity of its
 * own (`checkGuardrail`, or a local activity for `runs: 'local'`), so its verdict is recorded and a
 * replay never asks it again. Checks of a kind run in order, each on what the ones before left
 * (a replaced prompt or answer); the first trip ends it.
 */
export class TurnGuardrails {
  readonly #plan: GuardrailPlan;
  readonly #timeouts: RunTimeouts;
  readonly #tenant: string | undefined;

  constructor(plan: GuardrailPlan, timeouts: RunTimeouts, tenant: string | undefined) {
    this.#plan = plan;
    this.#timeouts = timeouts;
    this.#tenant = tenant;
  }

  /** The same input checks, no output checks (a turn that only writes: a deep run's plan). */
  withoutOutput(): TurnGuardrails {
    const { output: _, ...plan } = this.#plan;
    return new TurnGuardrails(plan, this.#timeouts, this.#tenant);
  }

  /** Whether there are input checks of this mode. */
  hasInput(mode: 'blocking' | 'parallel'): boolean {
    return (this.#plan.input ?? []).some((check) => check.mode === mode);
  }

  get hasOutput(): boolean {
    return (this.#plan.output?.length ?? 0) > 0;
  }

  /** The input checks of `mode` (all of them with `'all'`) on `prompt`. */
  async input(prompt: string, mode: 'blocking' | 'parallel' | 'all'): Promise<InputChecked> {
    let current = prompt;
    let replaced = false;
    for (const check of this.#plan.input ?? []) {
      if (mode !== 'all' && check.mode !== mode) continue;
      const verdict = await this.#ask(check, 'input', { prompt: current });
      if ('tripwire' in verdict)
        return { trip: { kind: 'input', check: check.name, reason: verdict.tripwire } };
      if ('replace' in verdict) {
        if (check.mode === 'parallel' && mode !== 'all')
          return {
            trip: {
              kind: 'input',
              check: check.name,
              reason:
                'A parallel input check cannot replace the prompt (the model already has it); make it blocking.',
            },
          };
        current = String(verdict.replace);
        replaced = true;
      }
    }
    return { prompt: current, replaced };
  }

  /** The output checks on an answer. */
  async output(answer: { text: string; output?: unknown }): Promise<OutputChecked> {
    let current = answer;
    let replaced = false;
    for (const check of this.#plan.output ?? []) {
      const verdict = await this.#ask(check, 'output', current);
      if ('tripwire' in verdict)
        return { trip: { kind: 'output', check: check.name, reason: verdict.tripwire } };
      if ('retry' in verdict) return { retry: verdict.retry, check: check.name };
      if ('replace' in verdict) {
        const value = verdict.replace;
        current =
          answer.output !== undefined
            ? { text: JSON.stringify(value), output: value }
            : { text: typeof value === 'string' ? value : JSON.stringify(value) };
        replaced = true;
      }
    }
    return { answer: current, replaced };
  }

  #ask(
    check: { name: string; local?: true },
    kind: 'input' | 'output',
    subject: CheckGuardrailInput['subject'],
  ): Promise<RecordedVerdict> {
    const input: CheckGuardrailInput = {
      agent: this.#plan.owner ?? '',
      kind,
      name: check.name,
      subject,
      ...(this.#tenant !== undefined ? { tenant: this.#tenant } : {}),
    };
    return (check.local ? localChecks(this.#timeouts) : checks(this.#timeouts)).checkGuardrail(input);
  }
}

/**
 * Checks that may call a model: the agent's model timeouts, and heartbeats (the activity beats
 * while the check runs) so a worker that dies in one is noticed within `modelHeartbeatMs`.
 */
function checks(timeouts: RunTimeouts): ReturnType<typeof proxyActivities<AgentActivities>> {
  return proxyActivities<AgentActivities>({
    ...runPriorityOption(),
    startToCloseTimeout: timeouts.modelStartToCloseMs,
    heartbeatTimeout: timeouts.modelHeartbeatMs,
    retry: {
      initialInterval: '1 second',
      maximumInterval: '10 seconds',
      maximumAttempts: timeouts.modelMaxAttempts,
    },
  });
}

/** Pure, fast checks (`runs: 'local'`): a local activity, on the worker running the workflow. */
function localChecks(timeouts: RunTimeouts): ReturnType<typeof proxyLocalActivities<AgentActivities>> {
  return proxyLocalActivities<AgentActivities>({
    startToCloseTimeout: '10 seconds',
    retry: {
      initialInterval: '200 milliseconds',
      maximumInterval: '5 seconds',
      maximumAttempts: timeouts.modelMaxAttempts || 10,
    },
  });
}
