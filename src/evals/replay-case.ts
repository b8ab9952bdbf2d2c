import type { AgentEvent } from '../common/events.ts';
import { ScriptedModel } from '../models/scripted.ts';
import { runCase, runnerOf, type EvalTarget } from './evaluate.ts';
import { callsOf, type RecordedCall, type RecordedCase } from './record.ts';
import { canonical } from './scorers.ts';
import type { CaseRun } from './types.ts';

/**
 * A model that answers as the recorded run's model did, step by step: give it to the agent (in
 * place of its model) to replay a {@link RecordedCase} with {@link replayCase} without a provider.
 */
export function recordedModel(evalCase: RecordedCase): ScriptedModel {
  return new ScriptedModel(evalCase.recorded.steps.map((step) => ({ ...step })));
}

/** Where a replay first went another way than the record. */
export interface Departure {
  /** `call`: the `index`-th tool call (from 0, the sub-agents' counted); `answer`: the final answer. */
  kind: 'call' | 'answer';
  index: number;
  recorded?: Pick<RecordedCall, 'tool' | 'args' | 'error' | 'agent'>;
  now?: Pick<RecordedCall, 'tool' | 'args' | 'error' | 'agent'>;
  reason: string;
}

export interface ReplayResult {
  /** The first place the new run departs from the record; absent when it followed it to the same answer. */
  departure?: Departure;
  run: CaseRun;
  /** The new run's tool calls with how each ended. */
  toolCalls: RecordedCall[];
}

/**
 * Runs a recorded case against the agent as it is now (its prompt, tools and sub-agents; give it
 * {@link recordedModel} to play the recorded model back, or its real model, and
 * {@link recordedTools} to answer the recorded calls from the record) and compares the new
 * trajectory with the recorded one: the first tool call that differs (another tool, other
 * arguments, or a call that failed where the recorded one did not, as when a tool was renamed) or,
 * when every call matched, a different answer.
 *
 * @example
 * const { departure } = await replayCase(evalCase, { client: agents, agent: 'support' });
 * if (departure) console.log(`departs at ${departure.kind} ${departure.index}: ${departure.reason}`);
 */
export async function replayCase(evalCase: RecordedCase, target: EvalTarget): Promise<ReplayResult> {
  const events: AgentEvent[] = [];
  const run = await runCase(runnerOf(target), evalCase, events);
  const toolCalls = callsOf(events);
  const departure = firstDeparture(evalCase.recorded, toolCalls, run);
  return { ...(departure ? { departure } : {}), run, toolCalls };
}

function firstDeparture(
  recorded: RecordedCase['recorded'],
  calls: RecordedCall[],
  run: CaseRun,
): Departure | undefined {
  const said = (call: RecordedCall) => `${call.tool}(${canonical(call.args)})`;
  const brief = ({ tool, args, error, agent }: RecordedCall) => ({
    tool,
    args,
    ...(error === undefined ? {} : { error }),
    ...(agent === undefined ? {} : { agent }),
  });
  for (let index = 0; index < Math.max(recorded.toolCalls.length, calls.length); index++) {
    const was = recorded.toolCalls[index];
    const now = calls[index];
    const both = { ...(was ? { recorded: brief(was) } : {}), ...(now ? { now: brief(now) } : {}) };
    if (!was) return { kind: 'call', index, ...both, reason: `an extra call: ${said(now!)}` };
    if (!now) return { kind: 'call', index, ...both, reason: `no call where the record called ${said(was)}` };
    if (said(was) !== said(now) || was.agent !== now.agent) {
      return {
        kind: 'call',
        index,
        ...both,
        reason: `called ${said(now)} where the record called ${said(was)}`,
      };
    }
    if (now.error !== undefined && was.error === undefined) {
      return {
        kind: 'call',
        index,
        ...both,
        reason: `${now.tool} failed where the record's call succeeded: ${now.error}`,
      };
    }
  }
  if (run.error) {
    return { kind: 'answer', index: calls.length, reason: `the run failed: ${run.error}` };
  }
  if (canonical(run.output) !== canonical(recorded.output)) {
    return {
      kind: 'answer',
      index: calls.length,
      reason: `answered ${canonical(run.output)} where the record answered ${canonical(recorded.output)}`,
    };
  }
  return undefined;
}
