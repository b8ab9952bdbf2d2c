import { getElementsByTagName } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Message } from '../../src/common/messages.ts';
import {
  compareReports,
  evaluate,
  exactOutput,
  llmJudge,
  outputIncludes,
  outputMatches,
  outputSchema,
  toJUnit,
  toolTrajectory,
  usageBudget,
  type EvalReport,
} from '../../src/evals/index.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { adder, usage } from './eval-models.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

function attemptOf(report: EvalReport, name: string) {
  const found = report.cases.find((c) => c.name === name);
  if (!found) throw new Error(`no case ${name}`);
  return found.attempts;
}

describe('evaluate: datasets through real agent runs', () => {
  let env: TestWorker;
  let add: AddTool;
  beforeAll(async () => {
    add = new AddTool();
    env = await startTestWorker({
      calc: { llm: adder(40), tools: [add] },
      // Like calc, but it writes 5 in words.
      'calc-words': {
        llm: new ScriptedModel(
          Array.from({ length: 4 }, () => (request: ModelRequest): ScriptedStep => {
            const last = request.messages.at(-1) as Message;
            const sum = last.role === 'tool' && last.content === '5' ? 'five' : last.content;
            if (last.role === 'tool') return { text: `The sum is ${sum}.`, usage: usage(5) };
            const [a, b] = (last.content.match(/\d+/g) ?? []).map(Number);
            return { toolCalls: [{ name: 'add', args: { a, b } }], usage: usage(10) };
          }),
        ),
        tools: [new AddTool()],
      },
      boss: {
        llm: new ScriptedModel(
          Array.from({ length: 4 }, () => (request: ModelRequest): ScriptedStep => {
            const last = request.messages.at(-1) as Message;
            if (last.role === 'tool') return { text: `Calc says: ${last.content}` };
            return { toolCalls: [{ name: 'agent_calc', args: { task: 'Add 4 and 4' } }] };
          }),
        ),
        subAgents: { calc: 'calc' },
      },
    });
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('scores each case with text, trajectory and usage scorers, with repeats and a pass rate', async () => {
    const ranBefore = add.ran.length;
    const report = await evaluate({
      client: env.agents,
      agent: 'calc',
      dataset: {
        name: 'arithmetic',
        cases: [
          { name: 'two and three', prompt: 'Add 2 and 3', expected: 'The sum is 5.' },
          { name: 'wrong expectation', prompt: 'Add 1 and 1', expected: 'The sum is 3.' },
        ],
      },
      scorers: [
        exactOutput(),
        outputMatches(/^The sum is \d+\.$/),
        toolTrajectory([{ tool: 'add' }], { mode: 'exact' }),
        usageBudget({ total_tokens: 100 }),
      ],
      repeat: 2,
      concurrency: 3,
    });
    // Four real runs, each one calling the real tool.
    expect(add.ran.length - ranBefore).toBe(4);
    expect(report.attempts).toBe(4);
    expect(report.passed).toBe(2);
    expect(report.passRate).toBe(0.5);
    expect(report.usage.total_tokens).toBe(4 * 30);
    const good = attemptOf(report, 'two and three');
    expect(good.map((a) => a.pass)).toEqual([true, true]);
    expect(good[0]!.run.toolCalls).toEqual([{ tool: 'add', args: { a: 2, b: 3 }, depth: 0 }]);
    expect(good[0]!.run.output).toBe('The sum is 5.');
    expect(good[0]!.run.workflowId).not.toBe(good[1]!.run.workflowId);
    const bad = attemptOf(report, 'wrong expectation');
    expect(bad.map((a) => a.pass)).toEqual([false, false]);
    // Only the exact scorer failed it, and it says why.
    expect(bad[0]!.scores.filter((s) => !s.pass)).toEqual([
      { scorer: 'exact', score: 0, pass: false, reason: 'expected "The sum is 3."' },
    ]);
    expect(report.cases.map((c) => c.passRate)).toEqual([1, 0]);
  });

  it('fails trajectories with other arguments or order, and usage over budget', async () => {
    const report = await evaluate({
      client: env.agents,
      agent: 'calc',
      dataset: [{ name: 'sum', prompt: 'Add 2 and 3' }],
      scorers: [
        toolTrajectory([{ tool: 'add', args: { a: 2, b: 4 } }], { mode: 'subset' }),
        toolTrajectory([{ tool: 'add' }, { tool: 'add' }], { mode: 'inOrder' }),
        usageBudget({ total_tokens: 29 }),
        outputSchema(z.object({ total: z.number() })),
      ],
    });
    const [attempt] = attemptOf(report, 'sum');
    expect(attempt!.scores.map((s) => [s.scorer, s.pass])).toEqual([
      ['trajectory(subset)', false],
      ['trajectory(inOrder)', false],
      ['usage', false],
      ['schema', false],
    ]);
    expect(attempt!.scores[2]!.reason).toBe('total_tokens 30 > 29');
  });

  it("sees a sub-agent's tool calls in the trajectory", async () => {
    const report = await evaluate({
      client: env.agents,
      agent: 'boss',
      dataset: [{ name: 'delegates', prompt: 'Ask calc', expected: 'Calc says' }],
      scorers: [
        toolTrajectory([{ tool: 'agent_calc' }, { tool: 'add', args: { a: 4, b: 4 } }], { mode: 'exact' }),
        outputIncludes(),
      ],
    });
    const [attempt] = attemptOf(report, 'delegates');
    expect(attempt!.run.toolCalls).toEqual([
      { tool: 'agent_calc', args: { task: 'Add 4 and 4' }, depth: 0 },
      { tool: 'add', args: { a: 4, b: 4 }, agent: 'calc', depth: 1 },
    ]);
    expect(attempt!.pass).toBe(true);
    expect(attempt!.run.output).toBe('Calc says: The sum is 8.');
  });

  it('grades with an LLM judge: the judge sees the answer and its score decides', async () => {
    const judge = new ScriptedModel([
      { object: { score: 0.9, reason: 'Gives the right sum.' } },
      { object: { score: 0.2, reason: 'Wrong sum.' } },
    ]);
    const report = await evaluate({
      client: env.agents,
      agent: 'calc',
      dataset: [
        { name: 'first', prompt: 'Add 20 and 22', expected: '42' },
        { name: 'second', prompt: 'Add 1 and 2' },
      ],
      scorers: [llmJudge({ model: judge, rubric: 'The answer states the correct sum.' })],
      concurrency: 1,
    });
    judge.assertAllStepsUsed();
    const asked = judge.calls.map((call) => call.messages.map((m) => m.content).join('\n'));
    expect(asked[0]).toContain('The sum is 42.');
    expect(asked[0]).toContain('A reference answer:\n42');
    expect(asked[0]).toContain('The answer states the correct sum.');
    expect(judge.calls[0]!.output?.schema).toMatchObject({ required: ['score', 'reason'] });
    expect(attemptOf(report, 'first')[0]!.scores).toEqual([
      { scorer: 'judge', score: 0.9, pass: true, reason: 'Gives the right sum.' },
    ]);
    expect(attemptOf(report, 'second')[0]!.scores).toEqual([
      { scorer: 'judge', score: 0.2, pass: false, reason: 'Wrong sum.' },
    ]);
  });

  it('writes JUnit XML that a JUnit reader parses into cases and failures', async () => {
    const report = await evaluate({
      client: env.agents,
      agent: 'calc',
      dataset: [
        { name: 'right <&> "quoted"', prompt: 'Add 2 and 2', expected: 'sum is 4' },
        { name: 'wrong', prompt: 'Add 2 and 5', expected: 'sum is 8' },
      ],
      scorers: [outputIncludes()],
      repeat: 2,
    });
    // htmlparser2 in XML mode: a strict reader that decodes entities as XML does.
    const doc = parseDocument(toJUnit(report), { xmlMode: true });
    const [suite] = getElementsByTagName('testsuite', doc);
    expect(suite!.attribs.tests).toBe('4');
    expect(suite!.attribs.failures).toBe('2');
    const cases = getElementsByTagName('testcase', doc);
    expect(cases.map((c) => c.attribs.name)).toEqual([
      'right <&> "quoted" #1',
      'right <&> "quoted" #2',
      'wrong #1',
      'wrong #2',
    ]);
    const failed = cases.filter((c) => getElementsByTagName('failure', c).length > 0);
    expect(failed.map((c) => c.attribs.name)).toEqual(['wrong #1', 'wrong #2']);
    expect(getElementsByTagName('failure', failed[0]!)[0]!.attribs.message).toBe(
      'includes: does not contain "sum is 8"',
    );
  });

  it('compares two reports case by case: pass rate, score, tokens and cost at the ledger prices', async () => {
    const dataset = [
      { name: 'five', prompt: 'Add 2 and 3', expected: 'The sum is 5.' },
      { name: 'two', prompt: 'Add 1 and 1', expected: 'The sum is 2.' },
    ];
    const baseline = await evaluate({ client: env.agents, agent: 'calc', dataset });
    const current = await evaluate({ client: env.agents, agent: 'calc-words', dataset });
    const model = baseline.cases[0]!.attempts[0]!.run.model!;
    const comparison = compareReports(baseline, current, { pricing: { [model]: { input: 1, output: 2 } } });
    expect(comparison.cases.map((c) => [c.name, c.change])).toEqual([
      ['five', 'worse'],
      ['two', 'same'],
    ]);
    expect(comparison).toMatchObject({ better: 0, worse: 1 });
    expect(comparison.cases[0]!.baseline).toMatchObject({ passRate: 1, score: 1, tokens: 30 });
    expect(comparison.cases[0]!.current).toMatchObject({ passRate: 0, score: 0, tokens: 30 });
    // 15 input tokens at $1 and 15 output tokens at $2 per million.
    expect(comparison.cases[1]!.current!.cost).toBeCloseTo(45 / 1_000_000, 12);
    expect(compareReports(baseline, current).cases[1]!.current!.cost).toBeUndefined();
  });

  it("runs a chat case turn by turn in one session, scoring the last answer and every turn's calls", async () => {
    const report = await evaluate({
      client: env.agents,
      agent: 'calc',
      dataset: [{ name: 'two turns', prompt: ['Add 2 and 3', 'Now add 4 and 4'], expected: 'The sum is 8.' }],
      scorers: [
        exactOutput(),
        toolTrajectory(
          [
            { tool: 'add', args: { a: 2, b: 3 } },
            { tool: 'add', args: { a: 4, b: 4 } },
          ],
          {
            mode: 'exact',
          },
        ),
      ],
    });
    const [attempt] = attemptOf(report, 'two turns');
    expect(attempt!.run.error).toBeUndefined();
    expect(attempt!.pass).toBe(true);
    expect(attempt!.run.output).toBe('The sum is 8.');
    expect(attempt!.run.usage.total_tokens).toBe(60);
    // One session held both turns.
    const sessionEvents = await env.agents.getHandle(attempt!.run.workflowId).listEvents();
    expect(sessionEvents.filter((e) => e.type === 'run_completed').map((e) => e.payload.output)).toEqual([
      'The sum is 5.',
      'The sum is 8.',
    ]);
  });
});
