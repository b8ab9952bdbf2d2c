import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getElementsByTagName } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EvalReport, RecordedCase, ReplayResult } from '../../src/evals/index.ts';
import { CLI_CONFIG, runCli } from '../support/cli.ts';

let home: string;
let env: Record<string, string>;
/** The CLI tests' config, with a price for its model (`rules`). */
let pricedConfig: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-eval-'));
  pricedConfig = join(home, 'toolkit-agent.config.ts');
  await writeFile(
    pricedConfig,
    `import base from ${JSON.stringify(CLI_CONFIG)};\n` +
      `export default { ...base, pricing: { rules: { input: 4, output: 20 } } };\n`,
  );
  env = {
    TOOLKIT_AGENT_HOME: home,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    CLI_TASK_QUEUE: `cli-${randomUUID()}`,
  };
});
afterAll(() => rm(home, { recursive: true, force: true }));

/** The CLI tests' config with `narrator`: the `helper` model, which also writes a line beside its tool calls. */
async function narratorConfig(): Promise<string> {
  const path = join(home, 'narrator.config.ts');
  await writeFile(
    path,
    `import base from ${JSON.stringify(CLI_CONFIG)};\n` +
      `const rules = base.agents.helper.llm;\n` +
      `const narrating = {\n` +
      `  specificationVersion: rules.specificationVersion,\n` +
      `  modelId: 'narrating',\n` +
      `  async generate(request) {\n` +
      `    const response = await rules.generate(request);\n` +
      `    return response.toolCalls.length ? { ...response, text: 'Let me add these up.' } : response;\n` +
      `  },\n` +
      `};\n` +
      `export default { ...base, agents: { ...base.agents, narrator: { llm: narrating, tools: base.agents.helper.tools } } };\n`,
  );
  return path;
}

describe('toolkit-agent eval', () => {
  it('runs a JSONL dataset: a table, JUnit XML, and exit 1 below the threshold', async () => {
    const dataset = join(home, 'sums.jsonl');
    await writeFile(
      dataset,
      [
        { name: 'five', prompt: 'add 2 and 3', expected: 'The sum is 5.' },
        { name: 'wrong', prompt: 'add 1 and 1', expected: 'The sum is 3.' },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n'),
    );
    const junit = join(home, 'junit.xml');
    const strict = await runCli(['-c', CLI_CONFIG, 'eval', dataset, '--junit', junit], { env });
    expect(strict.code, strict.stderr).toBe(1);
    expect(strict.stderr).toContain('Pass rate 50% is below the threshold 100%.');
    const lines = strict.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^case\s+passed\s+scores\s+tokens\s+time$/);
    expect(lines[1]).toMatch(/^five\s+1\/1\s+all passed\s+30\s+\d+ ms$/);
    expect(lines[2]).toMatch(/^wrong\s+0\/1\s+exact: expected "The sum is 3."\s+30\s/);
    expect(lines.at(-1)).toBe('1/2 passed (50%), 60 tokens');
    const doc = parseDocument(await readFile(junit, 'utf8'), { xmlMode: true });
    const cases = getElementsByTagName('testcase', doc);
    expect(cases.map((c) => [c.attribs.name, getElementsByTagName('failure', c).length])).toEqual([
      ['five', 0],
      ['wrong', 1],
    ]);

    const lenient = await runCli(
      ['-c', CLI_CONFIG, 'eval', dataset, '--threshold', '0.5', '--repeat', '2', '--json'],
      { env },
    );
    expect(lenient.code, lenient.stderr).toBe(0);
    const report = JSON.parse(lenient.stdout) as EvalReport;
    expect(report.name).toBe('sums');
    expect(report.attempts).toBe(4);
    expect(report.cases.map((c) => c.passRate)).toEqual([1, 0]);

    // The dataset's wrong expectation fixed: compared with the report before, one case got better.
    const baseline = join(home, 'baseline.json');
    await writeFile(baseline, lenient.stdout);
    await writeFile(
      dataset,
      [
        { name: 'five', prompt: 'add 2 and 3', expected: 'The sum is 5.' },
        { name: 'wrong', prompt: 'add 1 and 1', expected: 'The sum is 2.' },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n'),
    );
    const compared = await runCli(['-c', pricedConfig, 'eval', dataset, '--compare', baseline], { env });
    expect(compared.code, compared.stderr).toBe(0);
    const table = compared.stdout.trim().split('\n');
    const header = table.findIndex((line) => line.startsWith('case') && line.includes('change'));
    expect(table[header]).toMatch(/^case\s+change\s+passed\s+score\s+tokens\s+time\s+cost$/);
    // Two steps of 10 input and 5 output tokens, at $4 and $20 per million.
    expect(table[header + 1]).toMatch(/^five\s+same\s+100% → 100%\s+1\.00 → 1\.00\s+30 → 30\s.*\$0\.000280$/);
    expect(table[header + 2]).toMatch(/^wrong\s+better\s+0% → 100%\s+0\.00 → 1\.00\s/);
    expect(table.at(-1)).toBe('1 better, 0 worse than the baseline');
  });

  it('records a finished run as a case, which then runs as a dataset', async () => {
    const id = `eval-record-${randomUUID()}`;
    const run = await runCli(['-c', CLI_CONFIG, 'run', 'add 20 and 22', '--id', id], { env });
    expect(run.code, run.stderr).toBe(0);
    const file = join(home, 'recorded.json');
    const recorded = await runCli(['-c', CLI_CONFIG, 'eval', 'record', id, '-o', file], { env });
    expect(recorded.code, recorded.stderr).toBe(0);
    const evalCase = JSON.parse(await readFile(file, 'utf8')) as RecordedCase;
    expect(evalCase).toMatchObject({
      name: id,
      prompt: 'add 20 and 22',
      expected: 'The sum is 42.',
      recorded: {
        workflowId: id,
        toolCalls: [{ tool: 'add', args: { a: 20, b: 22 }, output: '42', depth: 0 }],
        output: 'The sum is 42.',
      },
    });

    // Played back on the agent as configured now: the same calls and answer.
    const replayed = await runCli(['-c', CLI_CONFIG, 'eval', 'record', id, '--replay'], { env });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toMatch(new RegExp(`^helper follows the record of ${id}: the same tool calls`));
    const live = await runCli(['-c', CLI_CONFIG, 'eval', 'record', id, '--live', '--json'], { env });
    expect(live.code, live.stderr).toBe(0);
    const result = JSON.parse(live.stdout) as ReplayResult;
    expect(result.departure).toBeUndefined();
    expect(result.run.output).toBe('The sum is 42.');
    expect(result.toolCalls.map((c) => c.output)).toEqual(['42']);
    // From the saved file alone (the recorded run is never read: its id here names no workflow), on an
    // agent without the `add` tool: the first call departs, exit 1, and the JUnit report says where.
    const saved = join(home, 'saved.json');
    const gone = `gone-${randomUUID()}`;
    await writeFile(
      saved,
      JSON.stringify({ ...evalCase, recorded: { ...evalCase.recorded, workflowId: gone } }),
    );
    const junit = join(home, 'replay.xml');
    const departed = await runCli(
      ['-c', CLI_CONFIG, 'eval', saved, '--replay', '-a', 'offline', '--junit', junit],
      { env },
    );
    expect(departed.code, departed.stdout + departed.stderr).toBe(1);
    expect(departed.stdout).toMatch(
      new RegExp(
        `^offline departs from the record of ${gone} at tool call 1: add failed where the record's call succeeded`,
      ),
    );
    const [failure] = getElementsByTagName('failure', parseDocument(await readFile(junit, 'utf8')));
    expect(failure!.attribs.message).toMatch(/^replay: departs at tool call 1: add failed where the record/);
    const notRecorded = join(home, 'plain.json');
    await writeFile(notRecorded, JSON.stringify({ name: 'plain', prompt: 'add 1 and 1' }));
    const refused = await runCli(['-c', CLI_CONFIG, 'eval', notRecorded, '--replay'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/"plain" of .*plain\.json has no recorded run to replay: save one with/);

    const again = await runCli(['-c', CLI_CONFIG, 'eval', file, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as EvalReport;
    expect(report.cases.map((c) => [c.name, c.passRate])).toEqual([[id, 1]]);
  });

  it('records the text the model wrote beside its tool calls, from the memory store the config uses', async () => {
    const config = await narratorConfig();
    const id = `eval-narrated-${randomUUID()}`;
    const run = await runCli(['-c', config, 'run', 'add 2 and 3', '-a', 'narrator', '--id', id], { env });
    expect(run.code, run.stderr).toBe(0);
    const recorded = await runCli(['-c', config, 'eval', 'record', id], { env });
    expect(recorded.code, recorded.stderr).toBe(0);
    const evalCase = JSON.parse(recorded.stdout) as RecordedCase;
    expect(evalCase.recorded.steps).toEqual([
      {
        text: 'Let me add these up.',
        toolCalls: [{ id: expect.any(String) as unknown, name: 'add', args: { a: 2, b: 3 } }],
      },
      { text: 'The sum is 5.' },
    ]);
  });

  it('records a chat session as a multi-turn case and names the turn where a replay departs', async () => {
    const session = `eval-chat-${randomUUID()}`;
    const chat = await runCli(['-c', CLI_CONFIG, 'chat', '--session', session], {
      env,
      input: 'hello\nadd 2 and 3\n/exit\n',
    });
    expect(chat.code, chat.stderr).toBe(0);
    const recorded = await runCli(['-c', CLI_CONFIG, 'eval', 'record', `chat-${session}`], { env });
    expect(recorded.code, recorded.stderr).toBe(0);
    const evalCase = JSON.parse(recorded.stdout) as RecordedCase;
    expect(evalCase.prompt).toEqual(['hello', 'add 2 and 3']);
    expect(evalCase.recorded.turns).toEqual([
      { prompt: 'hello', output: 'You said: hello' },
      { prompt: 'add 2 and 3', output: 'The sum is 5.' },
    ]);
    expect(evalCase.recorded.toolCalls).toMatchObject([{ tool: 'add', turn: 2, step: 1, output: '5' }]);

    const same = await runCli(['-c', CLI_CONFIG, 'eval', 'record', `chat-${session}`, '--replay'], { env });
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).toMatch(/^helper follows the record of chat-/);
    const departed = await runCli(
      ['-c', CLI_CONFIG, 'eval', 'record', `chat-${session}`, '--replay', '-a', 'offline'],
      { env },
    );
    expect(departed.code, departed.stdout + departed.stderr).toBe(1);
    expect(departed.stdout).toMatch(
      /^offline departs from the record of chat-\S+ at turn 2, tool call 1: add failed where the record's call succeeded/,
    );
  });
});
