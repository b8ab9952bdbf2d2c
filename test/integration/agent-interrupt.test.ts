import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { ROOT } from '../support/cli.ts';
import { startProgram } from '../support/node-program.ts';

describe('Ctrl-C during agent.run() in a program without signal handling', () => {
  it('ends with one line and exit code 130, not an uncaught stack trace', async () => {
    const program = startProgram([`${ROOT}test/fixtures/interrupted-agent.ts`], {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TASK_QUEUE: `interrupt-${randomUUID()}`,
    });
    // Starting a server and bundling the workflows takes a while on a loaded machine; Ctrl-C is what is tested.
    await program.waitFor(/step_started/, 120_000);
    program.child.kill('SIGINT');
    const end = await program.exit(15_000);
    expect(end.hung, `still running 15 s after Ctrl-C:\n${end.output}`).toBe(false);
    expect(end.code).toBe(130);
    expect(end.output).toContain("Interrupted (SIGINT): the agent's worker stopped.");
    expect(end.output).not.toMatch(/^\s+at /m);
    expect(end.output).not.toContain('The agent worker stopped (the agent was closed)');
  }, 180_000);

  it('on a temporary server says the run ends with the program, and how to make runs outlive it', async () => {
    const program = startProgram([`${ROOT}test/fixtures/interrupted-agent.ts`], { TEMPORAL_ADDRESS: '' });
    // Starting a server and bundling the workflows takes a while on a loaded machine; Ctrl-C is what is tested.
    await program.waitFor(/step_started/, 120_000);
    program.child.kill('SIGINT');
    const end = await program.exit(15_000);
    expect(end.hung, `still running 15 s after Ctrl-C:\n${end.output}`).toBe(false);
    expect(end.code).toBe(130);
    expect(end.output).toContain(
      'Interrupted (SIGINT): the agent stopped. Its runs were on a temporary server and task queue, so they end here',
    );
    expect(end.output).not.toContain('goes on when a worker serves its task queue again');
  }, 180_000);
});
