import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLI_CONFIG, runCli } from '../support/cli.ts';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-tool-failures-'));
});
afterAll(() => rm(home, { recursive: true, force: true }));

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    TOOLKIT_AGENT_HOME: home,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    CLI_TASK_QUEUE: `cli-${randomUUID()}`,
    ...extra,
  };
}

describe('tool calls refused and answered to the model (an unknown tool, bad arguments)', () => {
  it('are no activity failures in the log: nothing at the default level, the run goes on', async () => {
    const result = await runCli(['-c', CLI_CONFIG, 'run', 'misuse the tools'], { env: env() });
    // The run answered, but on no tool result: every call it made failed, so the command says so (exit 1).
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('Both calls were refused.\n');
    expect(result.stderr).toMatch(/^error: every tool call of this run failed \(2\)/m);
    expect(result.stderr).toMatch(/✗ weather/);
    expect(result.stderr).toMatch(/✗ add/);
    expect(result.stderr).not.toMatch(/Activity failed|taskToken|WARN|INFO/);
  });

  it('one line each at INFO (TOOLKIT_AGENT_LOG_LEVEL), never a block', async () => {
    const result = await runCli(['-c', CLI_CONFIG, 'run', 'misuse the tools'], {
      env: env({ TOOLKIT_AGENT_LOG_LEVEL: 'info' }),
    });
    expect(result.code, result.stderr).toBe(1); // every call failed (see above)
    const lines = result.stderr.split('\n');
    const toolLines = lines.filter((line) => /^INFO Tool \w+ failed; the model is told/.test(line));
    expect(toolLines).toHaveLength(2);
    // The tools the agent was given, not the skill-loading tools it was not.
    expect(toolLines.join('\n')).toContain('There is no tool named "weather". Available tools: add.');
    expect(toolLines.join('\n')).toContain('ToolInputError: Invalid arguments for add');
    expect(result.stderr).not.toMatch(/Activity failed|taskToken|\bat .+:\d+:\d+\)/);
  });

  it('refuses a log level that does not exist, naming the variable', async () => {
    const result = await runCli(['-c', CLI_CONFIG, 'run', 'hi'], {
      env: env({ TOOLKIT_AGENT_LOG_LEVEL: 'loud' }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'TOOLKIT_AGENT_LOG_LEVEL is "loud"; use one of TRACE, DEBUG, INFO, WARN, ERROR.',
    );
  });
});
