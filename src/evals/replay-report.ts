import type { RecordedCase } from './record.ts';
import type { Departure, ReplayResult } from './replay-case.ts';
import type { EvalReport } from './types.ts';

/**
 * Replays of recorded cases as an {@link EvalReport}, so that `toJUnit` writes them for CI: one case a
 * replay, passed when the run followed its record, failed with the departure's reason (scorer
 * `replay`) when it went another way.
 *
 * @example
 * const result = await replayCase(evalCase, { client: agents, agent: 'support' });
 * await writeFile('replay.xml', toJUnit(replayReport('replay', 'support', [{ evalCase, result }])));
 */
export function replayReport(
  name: string,
  agent: string,
  replays: ReadonlyArray<{ evalCase: RecordedCase; result: ReplayResult }>,
): EvalReport {
  const cases = replays.map(({ evalCase, result }) => {
    const pass = !result.departure;
    const score = { scorer: 'replay', score: pass ? 1 : 0, pass, reason: departureText(result) };
    return {
      name: evalCase.name,
      tags: evalCase.tags ?? [],
      attempts: [{ attempt: 1, run: result.run, scores: [score], pass }],
      passRate: pass ? 1 : 0,
    };
  });
  const passed = cases.filter((c) => c.passRate === 1).length;
  const total = (key: 'input_tokens' | 'output_tokens' | 'total_tokens') =>
    replays.reduce((sum, { result }) => sum + result.run.usage[key], 0);
  return {
    name,
    agent,
    cases,
    passRate: cases.length ? passed / cases.length : 1,
    attempts: cases.length,
    passed,
    durationMs: replays.reduce((sum, { result }) => sum + result.run.durationMs, 0),
    usage: {
      input_tokens: total('input_tokens'),
      output_tokens: total('output_tokens'),
      total_tokens: total('total_tokens'),
    },
  };
}

/** Where a replay departs from its record, in words ("departs at turn 2, tool call 1: …"), or that it followed it. */
function departureText({ departure }: ReplayResult): string {
  if (!departure) return 'follows the record: the same tool calls and answer';
  return `departs at ${departurePlace(departure)}: ${departure.reason}`;
}

/** The place of a departure: "tool call 2", "the answer", "turn 3, tool call 1". */
export function departurePlace(departure: Departure): string {
  const what = departure.kind === 'call' ? `tool call ${departure.index + 1}` : 'the answer';
  return departure.turn === undefined ? what : `turn ${departure.turn}, ${what}`;
}
