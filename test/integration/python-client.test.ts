import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { INVALID_WORKFLOW_INPUT } from '../../src/contract/check-input.ts';
import { exists } from '../../src/fs/probe.ts';

const root = new URL('../../', import.meta.url).pathname;
const PYTHON = process.env.TOOLKIT_AGENT_PYTHON ?? `${root}node_modules/.cache/python/bin/python`;
// The worker imports 'toolkit-agent' as a user does: the built package.
const skipped = !(await exists(PYTHON))
  ? `no Python with temporalio at ${PYTHON} (npm run python:install; .ci/run runs it)`
  : !(await exists(`${root}dist/index.js`))
    ? 'no build (npm run build)'
    : '';
if (skipped) console.warn(`Skipping the Python client example test: ${skipped}.`);

/** Runs a process to its end; rejects with its output when it fails. */
function finished(child: ChildProcess, name: string): Promise<string> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${name} exited ${code}:\n${output}`)),
    ),
  );
}

describe.skipIf(skipped)('examples/python: a Python client of the wire contract', () => {
  const address = inject('temporalAddress');
  const taskQueue = `python-${randomUUID()}`;
  let worker: ChildProcess;
  let agents: AgentClient;

  beforeAll(async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: address,
      TOOLKIT_AGENT_TASK_QUEUE: taskQueue,
    };
    for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY']) delete env[name];
    worker = spawn(process.execPath, [`${root}examples/python/worker.ts`], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Worker ready')) resolve();
      };
      worker.stdout!.on('data', read);
      worker.stderr!.on('data', read);
      worker.once('exit', (code) =>
        reject(new Error(`The worker exited (${code}) before it was ready:\n${output}`)),
      );
    });
    agents = await AgentClient.connect({ address, taskQueue });
  });
  afterAll(async () => {
    await agents?.close();
    if (worker?.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker.once('exit', resolve));
    }
  });

  it('starts a run, reads its events, holds a two-turn chat; the run is listed by its agent', async () => {
    const client = spawn(
      PYTHON,
      [`${root}examples/python/client.py`, '--address', address, '--task-queue', taskQueue],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output = await finished(client, 'client.py');
    const lines = output.trim().split('\n');
    const workflowId = /^started (\S+)$/m.exec(output)?.[1];
    expect(workflowId).toMatch(/^agent-support-/);
    // The events arrived in order, from the start to the answer, with the tool call between.
    const types = lines.filter((line) => line.startsWith('#')).map((line) => line.split(' ')[1]);
    expect(types[0]).toBe('run_started:');
    expect(types).toContain('tool_called:');
    expect(types).toContain('tool_completed:');
    expect(types.at(-1)).toBe('run_completed:');
    expect(lines).toContain('answer: The billing service is up.');
    // Listed by the visibility query of the docs (`ToolkitAgent = "support"`).
    expect(output).toMatch(new RegExp(`^listed ${workflowId} among \\d+ run\\(s\\) of support$`, 'm'));
    expect(output).toMatch(/^stop_reason: completed, steps: 2, /m);
    expect(lines).toContain('turn 1: Nice to meet you, Ada.');
    expect(lines).toContain('turn 2: Your name is Ada.');

    const listed = await agents.list({ agent: 'support' });
    const run = listed.find((entry) => entry.workflowId === workflowId);
    expect(run).toMatchObject({ agent: 'support', kind: 'run', status: 'completed' });
    expect(listed.filter((entry) => entry.kind === 'chat')).toHaveLength(1);
  });

  it('a start with a wrong input key fails at once, naming the key and the one meant', async () => {
    const handle = await agents.client.workflow.start('agentRun', {
      taskQueue,
      workflowId: `agent-support-${randomUUID()}`,
      args: [{ agentName: 'support', prompt: 'Is the billing service up?' }],
    });
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error as Error & { cause?: Error & { type?: string } },
    );
    expect(failure?.cause?.type).toBe(INVALID_WORKFLOW_INPUT);
    expect(failure?.cause?.message).toContain('unknown key "agentName": did you mean "agent"?');
  });
});
