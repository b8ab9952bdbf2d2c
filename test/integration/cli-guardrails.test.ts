import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLI_CONFIG, runCli } from '../support/cli.ts';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-guardrails-'));
});
afterAll(() => rm(home, { recursive: true, force: true }));

describe('toolkit-agent and guardrails', () => {
  it('run prints the guardrail that tripped and exits 1; runs show says which check and what it said', async () => {
    const env = {
      TOOLKIT_AGENT_HOME: home,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      CLI_TASK_QUEUE: `cli-${randomUUID()}`,
    };
    const run = await runCli(['-c', CLI_CONFIG, 'run', 'the forbidden question', '--agent', 'guarded'], {
      env,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('✗ Guardrail "no_forbidden" tripped: the prompt says forbidden');
    const id = /(agent-guarded-[\w-]+)/.exec(run.stderr)![1]!;
    const show = await runCli(['runs', 'show', id], { env });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(
      /^guardrail: +input guardrail "no_forbidden" tripped: the prompt says forbidden$/m,
    );
    const json = JSON.parse((await runCli(['runs', 'show', id, '--json'], { env })).stdout) as {
      guardrail: unknown;
      metadata: { stop_reason: string };
    };
    expect(json.guardrail).toEqual({
      kind: 'input',
      check: 'no_forbidden',
      reason: 'the prompt says forbidden',
    });
    expect(json.metadata.stop_reason).toBe('guardrail');
  });
});
