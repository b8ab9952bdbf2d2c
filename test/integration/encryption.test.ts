import { randomBytes, randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { NativeConnection, type Worker } from '@temporalio/worker';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { AgentClient } from '../../src/client/agent-client.ts';
import { createCodecServer } from '../../src/codec/codec-server.ts';
import { findTemporalCli } from '../../src/embedded/temporal-cli.ts';
import type { PayloadEncryptionOptions } from '../../src/codec/key-ring.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';
import { createAgentWorker } from '../../src/worker.ts';
import { encodedBundlePath } from '../support/encoded-bundle.ts';
import { collect, historyText } from './helpers.ts';

const run = promisify(execFile);
const K1 = randomBytes(32).toString('base64');
const K2 = randomBytes(32).toString('base64');
const FIRST: PayloadEncryptionOptions = { keys: { k1: K1 }, currentKeyId: 'k1' };
const ROTATED: PayloadEncryptionOptions = { keys: { k1: K1, k2: K2 }, currentKeyId: 'k2' };

/** Answers with a secret-looking text that the test then looks for in history. */
class LookupTool extends BaseConnectorTool {
  readonly name = 'lookup';
  readonly description = 'Looks a code up';
  readonly parameters = z.object({ code: z.string() });
  async run(_context: unknown, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: `TOOL-OUTPUT for ${String(args.code)}`, metadata: {} };
  }
}

/** Fails with the canary of its argument in the message, the way an upstream's error quotes a request. */
class LeakyTool extends BaseConnectorTool {
  readonly name = 'leaky';
  readonly description = 'Fails quoting its input';
  readonly parameters = z.object({ code: z.string() });
  async run(_context: unknown, args: Record<string, unknown>): Promise<ToolOutput> {
    throw new Error(`upstream rejected FAILURE-${String(args.code)}`);
  }
}

/** Calls `leaky` with the prompt's code, then answers; or, for a prompt with CRASH-, fails the step itself. */
function failingModel(): ScriptedModel {
  const step = (request: ModelRequest): ScriptedStep => {
    const last = request.messages.at(-1)!;
    if (last.role === 'tool') return { text: 'The lookup failed.' };
    const crash = /CRASH-\S+/.exec(String(last.content));
    if (crash) throw new Error(`model refused ${crash[0]}`);
    const code = /CODE-\S+/.exec(String(last.content))![0];
    return { toolCalls: [{ name: 'leaky', args: { code }, id: 'f1' }] };
  };
  return new ScriptedModel(Array.from({ length: 20 }, () => step));
}

/** Step 1 calls `lookup` with a code taken from the prompt; step 2 answers with the tool's output. */
function model(): ScriptedModel {
  const step = (request: ModelRequest): ScriptedStep => {
    const last = request.messages.at(-1)!;
    if (last.role === 'tool') return { text: `FINAL ${last.content}` };
    const code = /CODE-\S+/.exec(String(last.content))![0];
    return { toolCalls: [{ name: 'lookup', args: { code: `ARG-${code}` }, id: 'l1' }] };
  };
  return new ScriptedModel(Array.from({ length: 20 }, () => step));
}

describe('AES-256-GCM payload encryption', () => {
  it('refuses a prebuilt bundle that keeps failure text in the clear, and says which to build', async () => {
    await expect(
      createAgentWorker({
        address: '127.0.0.1:1',
        taskQueue,
        encryption: FIRST,
        agents: { keeper: { llm: model() } },
        memoryStore: new InMemoryMemoryStore(),
        workflowBundle: { codePath: inject('workflowBundlePath') },
      }),
    ).rejects.toThrow(
      /keeps failure messages in the clear.*buildAgentWorkflowBundle\(\{ encodeFailures: true \}\)/,
    );
  });

  const taskQueue = `enc-${randomUUID()}`;
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  /**
   * A worker with `encryption`. The first bundles the workflows itself (no bundle given: it builds
   * the one that encodes failure text, as encryption needs); the others take that bundle prebuilt.
   */
  async function startWorker(
    encryption: PayloadEncryptionOptions,
    bundle: 'own' | 'prebuilt' = 'prebuilt',
  ): Promise<() => Promise<void>> {
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker: Worker = await createAgentWorker({
      connection,
      taskQueue,
      encryption,
      agents: {
        keeper: { llm: model(), tools: [new LookupTool()] },
        breaker: {
          llm: failingModel(),
          tools: [new LeakyTool()],
          timeouts: { toolMaxAttempts: 1, modelMaxAttempts: 1 },
        },
      },
      memoryStore: new InMemoryMemoryStore(),
      ...(bundle === 'prebuilt' ? { workflowBundle: { codePath: await encodedBundlePath() } } : {}),
    });
    const running = worker.run();
    let stopped: Promise<void> | undefined;
    const stop = () =>
      (stopped ??= (async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
        await connection.close();
      })());
    cleanup.push(stop);
    return stop;
  }

  async function client(encryption: PayloadEncryptionOptions): Promise<AgentClient> {
    const agents = await AgentClient.connect({ address: inject('temporalAddress'), taskQueue, encryption });
    cleanup.push(() => agents.close());
    return agents;
  }

  /** The key ids of every encrypted payload in a run's history. */
  async function keyIds(agents: AgentClient, workflowId: string): Promise<Set<string>> {
    const text = await historyText(agents.client.workflow.getHandle(workflowId));
    return new Set(
      [...text.matchAll(/"encryption-key-id":"([^"]+)"/g)].map((m) =>
        Buffer.from(m[1]!, 'base64').toString(),
      ),
    );
  }

  let firstRun: { workflowId: string; code: string };

  beforeAll(async () => {
    const stopFirst = await startWorker(FIRST, 'own');
    const agents = await client(FIRST);
    const code = `CODE-${randomUUID()}`;
    const handle = await agents.start('keeper', `Please look up ${code} for me`);
    expect((await handle.result()).output).toBe(`FINAL TOOL-OUTPUT for ARG-${code}`);
    firstRun = { workflowId: handle.workflowId, code };
    await stopFirst();
  });

  it('keeps the prompt, tool arguments, tool output and answer out of the raw history bytes', async () => {
    const stop = await startWorker(FIRST);
    const agents = await client(FIRST);
    const history = await agents.client.workflow.getHandle(firstRun.workflowId).fetchHistory();
    const raw = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
    const text = await historyText(agents.client.workflow.getHandle(firstRun.workflowId));
    for (const secret of [firstRun.code, 'TOOL-OUTPUT', 'FINAL', 'Please look up']) {
      expect(raw.includes(secret)).toBe(false);
      expect(text).not.toContain(secret);
    }
    // Not vacuous: the payloads are there, encrypted, and the client reads them.
    expect(raw.includes('binary/encrypted')).toBe(true);
    expect(await keyIds(agents, firstRun.workflowId)).toEqual(new Set(['k1']));
    const events = await collect(agents.getHandle(firstRun.workflowId).events());
    expect(events.find((e) => e.type === 'tool_completed')!.payload.output).toBe(
      `TOOL-OUTPUT for ARG-${firstRun.code}`,
    );
    await stop();
  });

  it('reads runs written under the old key after the current key is rotated, and writes new ones under the new key', async () => {
    const stop = await startWorker(ROTATED);
    const agents = await client(ROTATED);
    const code = `CODE-${randomUUID()}`;
    const second = await agents.start('keeper', `Please look up ${code}`);
    expect((await second.result()).output).toBe(`FINAL TOOL-OUTPUT for ARG-${code}`);
    expect(await keyIds(agents, second.workflowId)).toEqual(new Set(['k2']));

    const first = agents.getHandle(firstRun.workflowId);
    expect((await first.result()).output).toBe(`FINAL TOOL-OUTPUT for ARG-${firstRun.code}`);
    expect((await collect(first.events())).at(-1)!.type).toBe('run_completed');

    // A client that dropped the old key says which key it lacks.
    const forgetful = await client({ keys: { k2: K2 }, currentKeyId: 'k2' });
    await expect(forgetful.getHandle(firstRun.workflowId).result()).rejects.toThrow(
      /encrypted with key "k1", which is not among the configured keys \(k2\)/,
    );
    await stop();
  });

  it('serves the codec endpoints the Temporal UI calls, with CORS, and refuses an unauthorized request', async () => {
    const server = createCodecServer({
      keys: ROTATED.keys,
      currentKeyId: 'k2',
      allowedOrigins: ['http://localhost:8233'],
      authorize: ({ authorization, namespace }) =>
        authorization === 'Bearer ui-token' && namespace === 'default',
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(async () => void server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // The workflow input of the first run, as the UI sends it: proto JSON, bytes in base64.
    const agents = await client(ROTATED);
    const history = await agents.client.workflow.getHandle(firstRun.workflowId).fetchHistory();
    const input = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    const body = JSON.stringify({
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(input.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
          data: Buffer.from(input.data!).toString('base64'),
        },
      ],
    });
    const ui = {
      origin: 'http://localhost:8233',
      'x-namespace': 'default',
      'content-type': 'application/json',
    };

    const preflight = await fetch(`${url}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: ui.origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ui.origin);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(
      /X-Namespace.*Authorization|Authorization.*X-Namespace/,
    );

    const decoded = await fetch(`${url}/decode`, {
      method: 'POST',
      headers: { ...ui, authorization: 'Bearer ui-token' },
      body,
    });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(ui.origin);
    const [payload] = (
      (await decoded.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> }
    ).payloads;
    expect(Buffer.from(payload!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(payload!.data, 'base64').toString())).toMatchObject({
      agent: 'keeper',
      prompt: `Please look up ${firstRun.code} for me`,
    });

    const unauthorized = await fetch(`${url}/decode`, {
      method: 'POST',
      headers: { ...ui, authorization: 'Bearer guess' },
      body,
    });
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.text()).not.toContain(firstRun.code);
    const strangeOrigin = await fetch(`${url}/decode`, {
      method: 'POST',
      headers: { ...ui, origin: 'https://evil.example', authorization: 'Bearer ui-token' },
      body,
    });
    expect(strangeOrigin.status).toBe(403);
    expect(strangeOrigin.headers.get('access-control-allow-origin')).toBeNull();

    // /encode then /decode gives the payload back, encrypted under the current key.
    const plain = {
      metadata: { encoding: Buffer.from('json/plain').toString('base64') },
      data: payload!.data,
    };
    const encoded = (await (
      await fetch(`${url}/encode`, {
        method: 'POST',
        headers: { ...ui, authorization: 'Bearer ui-token' },
        body: JSON.stringify({ payloads: [plain] }),
      })
    ).json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    expect(Buffer.from(encoded.payloads[0]!.metadata['encryption-key-id']!, 'base64').toString()).toBe('k2');
    const again = (await (
      await fetch(`${url}/decode`, {
        method: 'POST',
        headers: { ...ui, authorization: 'Bearer ui-token' },
        body: JSON.stringify(encoded),
      })
    ).json()) as { payloads: Array<{ data: string }> };
    expect(again.payloads[0]!.data).toBe(payload!.data);
  });
  it('keeps failure messages and stack traces out of the raw history; the client and the codec server decode them', async () => {
    const stop = await startWorker(FIRST);
    const agents = await client(FIRST);
    const code = `CODE-${randomUUID()}`;
    const toolFails = await agents.start('breaker', `Please fetch ${code}`);
    expect((await toolFails.result()).output).toBe('The lookup failed.');
    const crash = `CRASH-${randomUUID()}`;
    const runFails = await agents.start('breaker', `Please fetch ${crash}`);
    await expect(runFails.result()).rejects.toThrow(`model refused ${crash}`);

    for (const [handle, canary] of [
      [toolFails, `FAILURE-${code}`],
      [runFails, crash],
    ] as const) {
      const history = await agents.client.workflow.getHandle(handle.workflowId).fetchHistory();
      const raw = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
      expect(raw.includes(canary)).toBe(false);
      expect(await historyText(agents.client.workflow.getHandle(handle.workflowId))).not.toContain(canary);
      // Not vacuous: the failure is there, its text encoded.
      expect(raw.includes('Encoded failure')).toBe(true);
    }
    // What an operator's CLI shows of the failed run: its failure, its text encoded.
    const cli = (await findTemporalCli({ install: false }))!.path;
    const described = await run(cli, [
      ...[
        'workflow',
        'describe',
        '--address',
        inject('temporalAddress'),
        '--workflow-id',
        runFails.workflowId,
      ],
    ]);
    expect(described.stdout).toContain('Encoded failure');
    expect(described.stdout).not.toContain(crash);
    // The run's own reader gets the tool's error text back (decoded).
    const failed = (await collect(toolFails.events())).find((e) => e.type === 'tool_failed')!;
    expect(failed.payload.error).toContain(`FAILURE-${code}`);

    // The codec server decodes a failure's encoded attributes as the Temporal UI sends them.
    const server = createCodecServer({ keys: FIRST.keys, allowedOrigins: [], allowUnauthenticated: true });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(async () => void server.close());
    const history = await agents.client.workflow.getHandle(runFails.workflowId).fetchHistory();
    let failure = history.events!.find((e) => e.workflowExecutionFailedEventAttributes)!
      .workflowExecutionFailedEventAttributes!.failure;
    const encoded: Array<{ metadata: Record<string, string>; data: string }> = [];
    for (; failure; failure = failure.cause) {
      expect(failure.message).not.toContain(crash);
      const attributes = failure.encodedAttributes;
      if (!attributes) continue;
      encoded.push({
        metadata: Object.fromEntries(
          Object.entries(attributes.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
        ),
        data: Buffer.from(attributes.data!).toString('base64'),
      });
    }
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payloads: encoded }),
    });
    const decoded = ((await response.json()) as { payloads: Array<{ data: string }> }).payloads.map(
      (payload) => JSON.parse(Buffer.from(payload.data, 'base64').toString()) as { message: string },
    );
    expect(decoded.map((d) => d.message)).toContain(`model refused ${crash}`);
    await stop();
  });
});
