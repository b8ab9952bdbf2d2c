import type { AgentEvent } from '../common/events.ts';
import { ConfigurationError } from '../errors.ts';
import { ScriptedModel } from '../models/scripted.ts';
import { runCase, runnerOf, type EvalTarget } from './evaluate.ts';
import { callsOf, modelStepsPerTurn, type RecordedCall, type RecordedCase } from './record.ts';
import { canonical } from './scorers.ts';
import type { SessionTurn } from './session-turns.ts';
import type { CaseRun } from './types.ts';

/**
 * A model that answers as the recorded run's model did, step by step (a session's: turn after
 * turn): give it to the agent (in place of its model) to replay a {@link RecordedCase} with
 * {@link replayCase} without a provider. With `agent`, the model of that sub-agent as the record
 * has it: give it to the sub-agent's definition.
 */
export function recordedModel(evalCase: RecordedCase, opts: { agent?: string } = {}): ScriptedModel {
  const steps =
    opts.agent === undefined ? evalCase.recorded.steps : evalCase.recorded.subAgents?.[opts.agent];
  if (!steps) {
    const known = Object.keys(evalCase.recorded.subAgents ?? {});
    throw new ConfigurationError(
      `recordedModel: the case ${evalCase.name} has no steps of the sub-agent ${opts.agent}; ${known.length ? `it has ${known.join(', ')}` : 'its run called none'}.`,
    );
  }
  return new ScriptedModel(steps.map(({ turn, ...step }) => step));
}

type CallBrief = Pick<RecordedCall, 'tool' | 'args' | 'error' | 'agent'>;

/** Where a replay first went another way than the record. */
export interface Departure {
  /** `call`: a tool call differs; `answer`: every call matched, the answer did not. */
  kind: 'call' | 'answer';
  /**
   * `call`: the tool call that differs, from 0, the sub-agents' counted (in a chat case, within its
   * turn); `answer`: how many calls came before it.
   */
  index: number;
  /** The chat turn where the replay departs, from 1 (a chat case's only). */
  turn?: number;
  /** The model step (from 1, of the run or of the turn) that made the call, or that answered. */
  step: number;
  recorded?: CallBrief;
  now?: CallBrief;
  reason: string;
}

export interface ReplayResult {
  /** The first place the new run departs from the record; absent when it followed it to the same answer. */
  departure?: Departure;
  run: CaseRun;
  /** The new run's tool calls with how each ended (a session's: every turn's, each with its `turn`). */
  toolCalls: RecordedCall[];
}

/**
 * Runs a recorded case against the agent as it is now (its prompt, or its turns in a new chat
 * session, its tools and sub-agents; give it {@link recordedModel} to play the recorded model back,
 * or its real model, and {@link recordedTools} to answer the recorded calls from the record) and
 * compares the new trajectory with the recorded one: the first tool call that differs (another
 * tool, other arguments, or a call that failed where the recorded one did not, as when a tool was
 * renamed) or, when every call matched, a different answer. A chat case is compared turn by turn:
 * the first turn whose calls or answer differ is where it departs.
 *
 * @example
 * const { departure } = await replayCase(evalCase, { client: agents, agent: 'support' });
 * if (departure) console.log(`departs at ${departure.kind} ${departure.index}: ${departure.reason}`);
 */
export async function replayCase(evalCase: RecordedCase, target: EvalTarget): Promise<ReplayResult> {
  const events: AgentEvent[] = [];
  const turns: SessionTurn[] = [];
  const run = await runCase(runnerOf(target), evalCase, events, turns);
  const toolCalls = callsOf(events);
  const { recorded } = evalCase;
  const steps = modelStepsPerTurn(events);
  let departure: Departure | undefined;
  if (!recorded.turns) {
    departure =
      callDeparture(recorded.toolCalls, toolCalls) ??
      answerDeparture(
        { output: recorded.output },
        run.error === undefined ? { output: run.output } : { error: `the run failed: ${run.error}` },
        toolCalls.length,
        steps.get(0) ?? 0,
      );
  } else {
    for (const [index, was] of recorded.turns.entries()) {
      const turn = index + 1;
      const ofTurn = (calls: RecordedCall[]) => calls.filter((call) => call.turn === turn);
      const now = turns[index];
      const answer = !now
        ? { error: `the session ended before turn ${turn}${run.error ? `: ${run.error}` : ''}` }
        : now.error === undefined
          ? { output: now.output }
          : { error: `turn ${turn} failed: ${now.error}` };
      const found =
        callDeparture(ofTurn(recorded.toolCalls), ofTurn(toolCalls)) ??
        answerDeparture(was, answer, ofTurn(toolCalls).length, steps.get(turn) ?? 0);
      if (found) {
        departure = { ...found, turn };
        break;
      }
    }
  }
  return { ...(departure ? { departure } : {}), run, toolCalls };
}

/** The first of `calls` that differs from the recorded ones (another call, one too many or too few, a new failure). */
function callDeparture(recorded: RecordedCall[], calls: RecordedCall[]): Departure | undefined {
  const said = (call: RecordedCall) => `${call.tool}(${canonical(call.args)})`;
  const brief = ({ tool, args, error, agent }: RecordedCall): CallBrief => ({
    tool,
    args,
    ...(error === undefined ? {} : { error }),
    ...(agent === undefined ? {} : { agent }),
  });
  for (let index = 0; index < Math.max(recorded.length, calls.length); index++) {
    const was = recorded[index];
    const now = calls[index];
    const at = {
      kind: 'call' as const,
      index,
      step: (now ?? was)!.step,
      ...(was ? { recorded: brief(was) } : {}),
      ...(now ? { now: brief(now) } : {}),
    };
    if (!was) return { ...at, reason: `an extra call: ${said(now!)}` };
    if (!now) return { ...at, reason: `no call where the record called ${said(was)}` };
    if (said(was) !== said(now) || was.agent !== now.agent) {
      return { ...at, reason: `called ${said(now)} where the record called ${said(was)}` };
    }
    if (now.error !== undefined && was.error === undefined) {
      return { ...at, reason: `${now.tool} failed where the record's call succeeded: ${now.error}` };
    }
  }
  return undefined;
}

/** Where the answer departs from the recorded one (`calls` calls and `steps` model steps before it), if it does. */
function answerDeparture(
  was: { output: unknown; error?: string },
  now: { output?: unknown; error?: string },
  calls: number,
  steps: number,
): Departure | undefined {
  const at = { kind: 'answer' as const, index: calls, step: Math.max(steps, 1) };
  if (now.error !== undefined) {
    return was.error === undefined ? { ...at, reason: now.error } : undefined;
  }
  if (canonical(now.output) !== canonical(was.output)) {
    return {
      ...at,
      reason: `answered ${canonical(now.output)} where the record answered ${canonical(was.output)}`,
    };
  }
  return undefined;
}
