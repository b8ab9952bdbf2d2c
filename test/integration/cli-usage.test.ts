import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { UsageReport } from '../../src/usage/summary.ts';
import { CLI_CONFIG, runCli } from '../support/cli.ts';

let home: string;
let config: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-usage-'));
  // The CLI tests' config, with a price for its model.
  config = join(home, 'toolkit-agent.config.ts');
  await writeFile(
    config,
    `import base from ${JSON.stringify(CLI_CONFIG)};\n` +
      `export default { ...base, pricing: { rules: { input: 4, output: 20 } } };\n`,
  );
});
afterAll(() => rm(home, { recursive: true, force: true }));

describe('toolkit-agent usage', () => {
  it('reports the runs a worker recorded, per tenant with cost, as JSON and as a table', async () => {
    const env = {
      TOOLKIT_AGENT_HOME: home,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      CLI_TASK_QUEUE: `cli-${randomUUID()}`,
    };
    for (const [tenant, prompt] of [
      ['acme', 'please add 2 and 3'],
      ['acme', 'please add 4 and 5'],
      ['globex', 'please add 1 and 1'],
    ] as const) {
      const run = await runCli(['-c', config, 'run', prompt, '--tenant', tenant], { env });
      expect(run.code, run.stderr).toBe(0);
    }

    const json = await runCli(['-c', config, 'usage', '--tenant', 'acme', '--since', '7d', '--json'], {
      env,
    });
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as UsageReport;
    // The config's model counts 10 input and 5 output tokens a step; each run takes two steps.
    expect(report.totals).toMatchObject({
      runs: 2,
      tool_calls: 2,
      tools: { add: 2 },
      input_tokens: 40,
      output_tokens: 20,
    });
    expect(report.totals.cost).toBeCloseTo((40 * 4 + 20 * 20) / 1_000_000, 12);
    expect(report.groups?.map((g) => g.key)).toEqual(['acme']);

    const table = await runCli(['-c', config, 'usage', '--group-by', 'tenant'], { env });
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TENANT\s+RUNS\s+INPUT\s+OUTPUT\s+CACHE HIT\s+TOOL CALLS\s+COST$/);
    // The config's model reports no cache reads.
    expect(lines.find((l) => l.startsWith('acme'))).toMatch(/^acme\s+2\s+40\s+20\s+0\.0%\s+2\s/);
    expect(lines.find((l) => l.startsWith('globex'))).toMatch(/^globex\s+1\s/);
    expect(lines.at(-1)).toMatch(/^total\s+3\s.*\$\d+\.\d{4}$/);
  });

  it('refuses a --since it cannot read, saying what it takes (exit 2)', async () => {
    const result = await runCli(['usage', '--since', 'last tuesday'], { env: { TOOLKIT_AGENT_HOME: home } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"last tuesday" is not a time');
    expect(result.stderr).toContain('7d');
  });
});
