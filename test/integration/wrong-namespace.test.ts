import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { CLI, CLI_CONFIG, cliEnv, ROOT } from '../support/cli.ts';

const FIXTURE = `${ROOT}test/fixtures/wrong-namespace-agent.ts`;

/** Runs a Node program to its end; kills it (and says so) if it has not exited by itself in `limitMs`. */
function runToExit(args: string[], env: Record<string, string>, limitMs: number) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<{ code: number | null; hung: boolean; output: string; ms: number }>((resolve) => {
    const started = Date.now();
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, hung, output, ms: Date.now() - started });
    });
  });
}

describe('a namespace the server does not have', () => {
  const address = inject('temporalAddress');

  it('Agent: a ConfigurationError naming the namespace and the command to create it; the process exits by itself', async () => {
    const namespace = `missing-${randomUUID().slice(0, 8)}`;
    const result = await runToExit([FIXTURE], { TEMPORAL_ADDRESS: address, NAMESPACE: namespace }, 20_000);
    expect(result.hung, `still running after 20 s:\n${result.output}`).toBe(false);
    expect(result.code).toBe(0);
    expect(result.output).toContain(`ConfigurationError: Temporal namespace "${namespace}" does not exist`);
    expect(result.output).toContain(
      `temporal operator namespace create --namespace ${namespace} --address ${address}`,
    );
    // Nothing from Temporal's core: no gRPC status dump.
    expect(result.output).not.toMatch(/Status \{ code|TransportError|details: b"/);
  });

  it('CLI run --namespace: one error line, exit 1, no hang', async () => {
    const namespace = `missing-${randomUUID().slice(0, 8)}`;
    const result = await runToExit(
      [CLI, 'run', 'hi', '--config', CLI_CONFIG, '--address', address, '--namespace', namespace],
      {},
      20_000,
    );
    expect(result.hung, `still running after 20 s:\n${result.output}`).toBe(false);
    expect(result.code).toBe(1);
    expect(result.output).toContain(
      `Temporal namespace "${namespace}" does not exist on the server at ${address}`,
    );
    expect(result.output).toContain('temporal operator namespace create');
    expect(result.output).not.toMatch(/Status \{ code|TransportError|details: b"/);
  });
});
