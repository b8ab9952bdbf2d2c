import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { CLI, CLI_CONFIG, ROOT } from '../support/cli.ts';
import { startProgram } from '../support/node-program.ts';

const FIXTURE = `${ROOT}test/fixtures/wrong-namespace-agent.ts`;

describe('a namespace the server does not have', () => {
  const address = inject('temporalAddress');

  it('Agent: a ConfigurationError naming the namespace and the command to create it; the process exits by itself', async () => {
    const namespace = `missing-${randomUUID().slice(0, 8)}`;
    const result = await startProgram([FIXTURE], { TEMPORAL_ADDRESS: address, NAMESPACE: namespace }).exit(
      20_000,
    );
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
    const result = await startProgram(
      [CLI, 'run', 'hi', '--config', CLI_CONFIG, '--address', address, '--namespace', namespace],
      {},
    ).exit(20_000);
    expect(result.hung, `still running after 20 s:\n${result.output}`).toBe(false);
    expect(result.code).toBe(1);
    expect(result.output).toContain(
      `Temporal namespace "${namespace}" does not exist on the server at ${address}`,
    );
    expect(result.output).toContain('temporal operator namespace create');
    expect(result.output).not.toMatch(/Status \{ code|TransportError|details: b"/);
  });
});
