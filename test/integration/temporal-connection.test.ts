import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import type { AgentResult } from '../../src/common/run.ts';
import { ConfigurationError } from '../../src/errors.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { createAgentWorker } from '../../src/worker.ts';
import { makeCertificates, startTlsGateway, type TlsGateway } from '../support/tls-gateway.ts';
import { runAdderInProcesses, type NodeProcess } from './processes.ts';

const API_KEY = `tk-${randomUUID()}-secret`;
const WRONG_KEY = `tk-${randomUUID()}-wrong`;

describe('Temporal behind TLS and an API key, configured by a temporal.toml profile', () => {
  let dir: string;
  let gateway: TlsGateway;
  let configFile: string;
  const processes: NodeProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tls-gateway-'));
    const certificates = await makeCertificates(dir);
    gateway = await startTlsGateway({ upstream: inject('temporalAddress'), apiKey: API_KEY, certificates });
    configFile = join(dir, 'temporal.toml');
    const tls = `server_ca_cert_path = "${certificates.caPath}"\nserver_name = "localhost"\n`;
    await writeFile(
      configFile,
      `[profile.gateway]\naddress = "${gateway.address}"\nnamespace = "default"\napi_key = "${API_KEY}"\n` +
        `[profile.gateway.tls]\n${tls}\n` +
        `[profile.wrong]\naddress = "${gateway.address}"\nnamespace = "default"\napi_key = "${WRONG_KEY}"\n` +
        `[profile.wrong.tls]\n${tls}`,
    );
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await gateway?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs an agent with a worker and a client process that both connect through the gateway by profile', async () => {
    const env = {
      TEMPORAL_CONFIG_FILE: configFile,
      TEMPORAL_PROFILE: 'gateway',
      TASK_QUEUE: `tls-${randomUUID()}`,
      LOG_LEVEL: 'INFO',
    };
    const { worker, client } = await runAdderInProcesses(env, {
      workflowBundle: inject('workflowBundlePath'),
      memoryDb: join(dir, 'memory.sqlite'),
      processes,
    });
    expect(await client.exited).toBe(0);
    const last = JSON.parse(client.lines.at(-1)!) as { result: AgentResult };
    expect(last.result.output).toBe('2 + 3 = 5');
    worker.child.kill('SIGTERM');
    await worker.exited;

    // Everything went through the gateway, with the key; the dev server saw no direct call.
    expect(gateway.counts.forwarded).toBeGreaterThan(5);
    for (const p of [worker, client]) {
      const output = `${p.lines.join('\n')}\n${p.stderr()}`;
      expect(output).not.toContain(API_KEY);
    }
  });

  it('fails a client and a worker with a wrong key clearly, naming the profile and never the key', async () => {
    const refusedBefore = gateway.counts.refused;
    const clientError = await AgentClient.connect({
      taskQueue: 'nowhere',
      temporal: { profile: 'wrong', configFile },
    }).catch((e: unknown) => e);
    expect(clientError).toBeInstanceOf(ConfigurationError);
    const message = (clientError as Error).message;
    expect(message).toContain(`Could not connect to Temporal at ${gateway.address}`);
    expect(message).toContain('profile "wrong"');
    expect(message).toMatch(/refused the credentials: check the api_key of profile "wrong"/);
    expect(message).not.toContain(WRONG_KEY);
    expect(JSON.stringify(clientError, Object.getOwnPropertyNames(clientError))).not.toContain(WRONG_KEY);

    const workerError = await createAgentWorker({
      taskQueue: 'nowhere',
      temporal: { profile: 'wrong', configFile },
      agents: { a: { llm: new ScriptedModel([]) } },
      memoryStore: new InMemoryMemoryStore(),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    }).catch((e: unknown) => e);
    expect(workerError).toBeInstanceOf(ConfigurationError);
    expect((workerError as Error).message).toContain('profile "wrong"');
    expect((workerError as Error).message).not.toContain(WRONG_KEY);
    expect(gateway.counts.refused).toBeGreaterThan(refusedBefore);
  });

  it('names an unknown profile and the file it looked in', async () => {
    const error = await AgentClient.connect({
      taskQueue: 'nowhere',
      temporal: { profile: 'staging', configFile },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('profile "staging"');
    expect((error as Error).message).toContain(configFile);
  });
});
