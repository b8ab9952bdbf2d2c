import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PostgresCredentialStore } from '../../src/credentials/postgres.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';
import { encodedBundlePath } from '../support/encoded-bundle.ts';

const url = inject('postgresUrl');
if (!url) console.warn(`Skipping the multi-host rehearsal: ${inject('postgresSkipped')}`);

const RUNS = 40;

describe.skipIf(!url)('the multi-host rehearsal', () => {
  const processes: NodeProcess[] = [];
  let connection: Connection | undefined;
  let credentials: PostgresCredentialStore | undefined;
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await credentials?.close();
    await connection?.close();
  });

  it('completes 40 encrypted runs on two worker processes with shared PostgreSQL stores while one worker is SIGKILLed midway', async () => {
    const credentialsKey = `rehearsal-${randomUUID()}`;
    credentials = new PostgresCredentialStore({ connectionString: url, encryptionKey: credentialsKey });
    await credentials.put({
      name: 'ledger',
      type: 'api_key',
      token: 'ledger-key',
      metadata: { bank: 'First Bank' },
    });
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TASK_QUEUE: `rehearsal-${randomUUID()}`,
      PG_URL: url,
      CREDENTIALS_KEY: credentialsKey,
      TOOLKIT_PAYLOAD_KEYS: `r1:${randomBytes(32).toString('base64')}`,
    };
    const bundle = await encodedBundlePath();
    const worker = () => {
      const child = startNodeProcess('test/fixtures/worker-process.ts', {
        ...env,
        MODE: 'rehearsal',
        WORKFLOW_BUNDLE: bundle,
      });
      processes.push(child);
      return child;
    };
    const [a, b] = [worker(), worker()];
    await Promise.all([a.waitForLine(/^READY$/), b.waitForLine(/^READY$/)]);
    const client = startNodeProcess('test/fixtures/rehearsal-client.ts', { ...env, RUNS: String(RUNS) });
    processes.push(client);
    const ids = JSON.parse((await client.waitForLine(/^STARTED /)).slice('STARTED '.length)) as string[];

    // Midway: once both workers have served model steps and fewer than half of all steps are done.
    const steps = (p: NodeProcess) => p.lines.filter((l) => l.startsWith('MODEL_STEP ')).length;
    while (steps(a) < 5 || steps(b) < 5) await new Promise((resolve) => setTimeout(resolve, 25));
    const stepsBeforeKill = steps(a) + steps(b);
    a.child.kill('SIGKILL');
    await a.exited;

    const outputs = JSON.parse((await client.waitForLine(/^RESULTS /)).slice('RESULTS '.length)) as string[];
    expect(await client.exited).toBe(0);
    expect(outputs).toEqual(
      Array.from({ length: RUNS }, (_, i) => `account ${i}: balance ${i * 3} at First Bank`),
    );
    expect(stepsBeforeKill).toBeLessThan(2 * RUNS);
    expect(steps(b)).toBeGreaterThan(5);

    // Encrypted in history: the prompt and the tool output of a run are not in its raw bytes.
    connection = await Connection.connect({ address: inject('temporalAddress') });
    const history = await new Client({ connection }).workflow.getHandle(ids[7]!).fetchHistory();
    const raw = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
    expect(raw.includes('binary/encrypted')).toBe(true);
    expect(raw.includes('account 7')).toBe(false);
    expect(raw.includes('balance 21')).toBe(false);
    expect(raw.includes('ledger-key')).toBe(false);
  }, 240_000);
});
