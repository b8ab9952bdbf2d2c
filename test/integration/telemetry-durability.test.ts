import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

/** A span as it arrived over OTLP/HTTP, decoded from the JSON encoding. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

interface OtlpJson {
  resourceSpans?: Array<{
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: Array<{ key: string; value: Record<string, unknown> }>;
      }>;
    }>;
  }>;
}

/** A local OTLP/HTTP trace receiver: accepts `POST /v1/traces` (JSON) and keeps every span it decodes. */
async function startReceiver(): Promise<{ server: Server; url: string; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpJson;
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            const attributes = Object.fromEntries(
              (span.attributes ?? []).map(({ key, value }) => [key, Object.values(value)[0]]),
            );
            spans.push({ ...span, parentSpanId: span.parentSpanId || undefined, attributes });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/v1/traces`, spans };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; !check(); attempt++) {
    if (attempt === 300) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('spans of a run whose worker is killed and replaced, exported over OTLP/HTTP', () => {
  let dir: string;
  let connection: Connection;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const processes: NodeProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'telemetry-durability-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    receiver?.server.close();
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('exports each completed step once, in one complete trace', async () => {
    const taskQueue = `telemetry-durable-${randomUUID()}`;
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: taskQueue,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      MARKER_FILE: join(dir, 'marker.log'),
      OTLP_URL: receiver.url,
    };
    const first = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'crash-first' });
    processes.push(first);
    await first.waitForLine(/^READY$/);

    const agents = new AgentClient({ client: new Client({ connection }), taskQueue });
    const handle = await agents.start('durable', 'Leave a mark, then finish');
    const named = (name: string) => receiver.spans.filter((span) => span.name === name);

    // Step 1 and its tool call are done and exported; the model hangs on step 2: kill the worker.
    await first.waitForLine(/^MODEL_STEP 2 /);
    await until(
      () => named('execute_tool mark').length === 1 && named('chat scripted').length === 1,
      'step 1',
    );
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'crash-second' });
    processes.push(second);
    expect((await handle.result()).output).toBe('finished after the restart');
    await until(
      () => named('invoke_agent durable').length > 0 && named('RunWorkflow:agentRun').length > 0,
      'the run',
    );
    second.child.kill('SIGTERM');
    await second.exited;

    const spans = receiver.spans;
    // Each span arrived once: nothing the first worker exported came again from the replay.
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    expect(named('invoke_agent durable')).toHaveLength(1);
    expect(named('chat scripted')).toHaveLength(2);
    expect(named('execute_tool mark')).toHaveLength(1);
    // The opening step resolved the run and took its first model step.
    expect(named('StartActivity:openRun')).toHaveLength(1);
    expect(named('StartActivity:callModel')).toHaveLength(1);
    expect(named('StartActivity:invokeTool')).toHaveLength(1);
    expect(named('RunWorkflow:agentRun')).toHaveLength(1);

    // One trace, and every parent is there: the replayed run span has the id its children knew.
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const ids = new Set(spans.map((s) => s.spanId));
    expect(spans.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId))).toEqual([]);
    expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual(['RunWorkflow:agentRun']);
    const run = named('invoke_agent durable')[0]!;
    for (const step of [...named('chat scripted'), ...named('execute_tool mark')]) {
      let parent = spans.find((s) => s.spanId === step.parentSpanId);
      while (parent && parent.spanId !== run.spanId)
        parent = spans.find((s) => s.spanId === parent!.parentSpanId);
      expect(parent, `${step.name} descends from invoke_agent`).toBe(run);
    }
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'durable',
    });
    expect(named('execute_tool mark')[0]!.attributes).toMatchObject({
      'gen_ai.tool.name': 'mark',
      'gen_ai.tool.call.id': 'mark_1',
    });
  });
});
