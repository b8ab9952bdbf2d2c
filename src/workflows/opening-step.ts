import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { TextDeltaSignal } from '../common/control.ts';
import { earliestDeadline } from '../common/deadline.ts';
import type { OpenedRun, OpenRunInput } from '../common/opening.ts';
import type { AgentRunInput, UnavailableMcp } from '../common/run.ts';
import type { RunLineSoFar } from '../common/model-step.ts';
import type { Emit } from './event-log.ts';
import { showLiveText, showStepStarted } from './model-steps.ts';
import { openingActivities, resolveRunActivities } from './quick-activities.ts';
import type { ControlledLoop, RunControl } from './run-control.ts';
import { StepText } from './step-text.ts';

/** An opened turn: its plan, the first model step when the opening step took it, and what its events said. */
export interface OpenedTurn extends OpenedRun {
  /** The live text of the first step said the step started (and warned of left-out MCP servers). */
  started: boolean;
  /** The first step's live text so far (what a turn stopped in it keeps). */
  liveText?: StepText;
}

/**
 * Opens a turn with `openRun` (src/activities/open-run.ts): the run is resolved and its first model
 * step taken in one activity, under the run's control, so a stop cancels it. While it runs, the
 * step's live text is shown: its first batch says what the plan would (the iteration limit, the MCP
 * servers left out), so `step_started` and the warning come before the text, as in any step. A
 * turn stopped before its plan was made resolves it as a turn without an opening step does, so the
 * loop can end it with its reason. A failure (an unknown agent or skill, a refused start) is the
 * run's, as `resolveRun`'s is.
 */
export async function openTurn(
  input: OpenRunInput,
  control: RunControl,
  emit: Emit,
  tags: Record<string, unknown>,
): Promise<OpenedTurn> {
  const text = new OpeningText(emit, tags);
  control.loop = text;
  try {
    const opened = await control.run(() => openingActivities().openRun(input));
    return { ...opened, started: text.started, liveText: text.written };
  } catch (error) {
    if (!isCancellation(error)) throw failureOf(error);
    // Stopped before the plan was made: resolve it (not cancellable), and the loop ends the turn.
    const plan = await CancellationScope.nonCancellable(() =>
      resolveRunActivities().resolveRun(input.resolve),
    );
    return { plan, started: text.started, liveText: text.written };
  } finally {
    control.loop = undefined;
  }
}

/**
 * What the opening step needs besides the plan: the run's own `output` and deadline, a deadline set
 * before the turn (its parent's, or a deep run's from its first phase), the turn's ledger line.
 */
export function openingStep(
  input: AgentRunInput,
  control: RunControl,
  turn: { startedAt: number; labelAgent?: boolean | undefined; runLine?: RunLineSoFar | undefined },
): OpenRunInput['step'] {
  const setBefore = earliestDeadline(input.parent?.deadlineAt, control.deadlineAt);
  return {
    startedAt: turn.startedAt,
    ...(turn.labelAgent ? { labelAgent: true } : {}),
    ...(input.output ? { output: input.output } : {}),
    ...(input.frontendTools?.length ? { frontendTools: input.frontendTools } : {}),
    ...(turn.runLine ? { runLine: turn.runLine } : {}),
    ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
    ...(setBefore !== undefined ? { deadlineAt: setBefore } : {}),
  };
}

/** The failure of the opening step as `resolveRun`'s local activity gave it: the activity's own. */
function failureOf(error: unknown): unknown {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause : error;
}

/** Said at the start: the run goes on without these servers' tools, and the reader knows why. */
export function warnUnavailableMcps(emit: Emit, unavailable: UnavailableMcp[]): void {
  const which = unavailable.map(({ server, reason }) => `"${server}" (${reason})`).join('; ');
  emit('warning', `MCP servers left out of this run: ${which}`, {
    level: 'warning',
    unavailable_mcps: unavailable,
  });
}

/** The live text of the opening step, before the loop (and the plan) exist. */
class OpeningText implements ControlledLoop {
  readonly #emit: Emit;
  readonly #tags: Record<string, unknown>;
  /** The step's position, from its first batch. */
  #seq: number | undefined;
  /** What the step has written so far. */
  readonly written = new StepText();

  constructor(emit: Emit, tags: Record<string, unknown>) {
    this.#emit = emit;
    this.#tags = tags;
  }

  get started(): boolean {
    return this.#seq !== undefined;
  }

  acceptTextDelta(delta: TextDeltaSignal): void {
    if (typeof delta.text !== 'string') return;
    if (this.#seq === undefined) {
      // Text before the header is not this step's (a batch of a retried attempt says it again).
      if (!delta.opening) return;
      this.#seq = delta.seq;
      const { maxIterations, unavailable_mcps: unavailable } = delta.opening;
      if (unavailable?.length) warnUnavailableMcps(this.#emit, unavailable);
      showStepStarted(this.#emit, 1, maxIterations, this.#tags);
    }
    // The activity sends the answer so far only in a structured turn.
    if (delta.seq !== this.#seq) return;
    this.written.add(delta);
    showLiveText(this.#emit, delta, true);
  }
}
