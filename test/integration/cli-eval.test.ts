import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getElementsByTagName } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EvalReport, RecordedCase } from '../../src/evals/index.ts';
import { CLI_CONFIG, runCli } from '../support/cli.ts';

let home: string;
let env: Record<string, string>;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-eval-'));
  env = {
    TOOLKIT_AGENT_HOME: home,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    CLI_TASK_QUEUE: `cli-${randomUUID()}`,
  };
});
afterAll(() => rm(home, { recursive: true, force: true }));

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

    const again = await runCli(['-c', CLI_CONFIG, 'eval', file, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as EvalReport;
    expect(report.cases.map((c) => [c.name, c.passRate])).toEqual([[id, 1]]);
  });
});
