import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { z } from 'zod';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { toUIMessageChunkStream, toUIMessageStreamResponse } from '../../src/ui-stream/ui-message-stream.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const Verdict = z.object({ answer: z.number(), checked_by: z.string() });

describe('the AI SDK UI message stream of a durable run', () => {
  const closing: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closing.reverse()) await close();
  });

  it("reads a run with a sub-agent, reasoning, a tool and structured output through the AI SDK's own transport, without a validation error", async () => {
    const lead = new ScriptedModel([
      {
        reasoning: 'The helper should add these.',
        toolCalls: [{ name: 'agent_helper', args: { task: 'Add 2 and 3' }, id: 'h1' }],
      },
      { toolCalls: [{ name: 'add', args: { a: 5, b: 1 } }] },
      { object: { answer: 6, checked_by: 'helper' } },
    ]);
    const helper = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }] },
      { text: 'It is 5' },
    ]);
    const env: TestWorker = await startTestWorker({
      lead: { llm: lead, tools: [new AddTool()], subAgents: { helper: 'helper' } },
      helper: { llm: helper, tools: [new AddTool()] },
    });
    closing.push(() => env.stop());
    const handle = await env.agents.start('lead', 'What is 2 + 3 + 1?', { output: Verdict });
    const events = await collect(handle.events());

    // Over real HTTP, read by the AI SDK's DefaultChatTransport (which validates every chunk).
    const server = await serveFetch((request) => {
      const id = /^\/runs\/([^/]+)\/stream$/.exec(new URL(request.url).pathname)?.[1];
      return toUIMessageStreamResponse(env.agents.getHandle(decodeURIComponent(id!)), {
        messageId: 'answer-1',
      });
    });
    closing.push(() => server.close());
    const response = await fetch(`${server.url}/runs/${encodeURIComponent(handle.workflowId)}/stream`);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const sse = await response.text();
    expect(sse.trimEnd().endsWith('data: [DONE]')).toBe(true);

    const transport = new DefaultChatTransport({ api: `${server.url}/runs` });
    const chunks = await transport.reconnectToStream({ chatId: encodeURIComponent(handle.workflowId) });
    const errors: unknown[] = [];
    let message: UIMessage | undefined;
    for await (const read of readUIMessageStream({
      stream: chunks!,
      onError: (error) => errors.push(error),
      terminateOnError: true,
    })) {
      message = read;
    }
    expect(errors).toEqual([]);
    expect(message!.id).toBe('answer-1');
    const parts = message!.parts;
    const types = parts.map((part) => part.type);
    expect(types.filter((t) => t === 'step-start')).toHaveLength(3);
    expect(parts.find((part) => part.type === 'reasoning')).toMatchObject({
      text: 'The helper should add these.',
      state: 'done',
    });
    const tools = parts.filter((part) => part.type === 'dynamic-tool');
    expect(tools.map((part) => [part.toolName, part.state, part.input, part.output])).toEqual([
      ['agent_helper', 'output-available', { task: 'Add 2 and 3' }, 'It is 5'],
      ['add', 'output-available', { a: 5, b: 1 }, '6'],
    ]);
    // The sub-agent's activity is one data part, at its last event; the object is data-output.
    const subAgent = parts.filter((part) => part.type === 'data-sub-agent');
    expect(subAgent).toHaveLength(1);
    expect(subAgent[0]).toMatchObject({ data: { agent: 'helper', type: 'run_completed', depth: 1 } });
    expect(parts.find((part) => part.type === 'data-output')).toMatchObject({
      data: { answer: 6, checked_by: 'helper' },
    });
    expect(parts.find((part) => part.type === 'data-partial-output')).toMatchObject({
      data: { answer: 6, checked_by: 'helper' },
    });
    const text = parts.filter((part) => part.type === 'text').map((part) => part.text);
    expect(JSON.parse(text.join(''))).toEqual({ answer: 6, checked_by: 'helper' });

    // The chunk form: the same chunks, ending with finish, none after it.
    const direct: UIMessageChunk[] = [];
    for await (const chunk of toUIMessageChunkStream<UIMessageChunk>(handle)) direct.push(chunk);
    expect(direct[0]).toMatchObject({ type: 'start' });
    expect(direct.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(direct.filter((c) => c.type === 'data-sub-agent')).toHaveLength(
      events.filter((e) => e.payload.sub_run !== undefined).length,
    );
  });

  it('stops reading the run when its reader goes away (a page closed): no more queries, the run goes on', async () => {
    const words = 60;
    const env = await startTestWorker({
      writer: {
        llm: new ScriptedModel([
          async (request) => {
            for (let i = 1; i <= words; i++) {
              request.onTextDelta?.(`w${i} `);
              await sleep(50);
            }
            return { text: 'done' };
          },
        ]),
      },
    });
    closing.push(() => env.stop());
    let queries = 0;
    const client = new Client({
      connection: env.client.connection,
      interceptors: {
        workflow: [
          {
            query: (input, next) => {
              queries += 1;
              return next(input);
            },
          },
        ],
      },
    });
    const agents = new AgentClient({ client, taskQueue: env.taskQueue });
    const handle = await agents.start('writer', 'Write');
    const reader = toUIMessageChunkStream(handle).getReader();
    for (let deltas = 0; deltas < 2;) if ((await reader.read()).value?.type === 'text-delta') deltas++;
    await reader.cancel();
    await sleep(300);
    const afterCancel = queries;
    await sleep(1500);
    expect(queries).toBe(afterCancel);
    expect((await handle.result()).output).toBe('done');
  });

  it('refuses a resume point that is not an event cursor, saying what one looks like', async () => {
    const env = await startTestWorker({ lead: { llm: new ScriptedModel([]) } });
    closing.push(() => env.stop());
    expect(() => toUIMessageChunkStream(env.agents.getHandle('some-run'), { after: 'x/1' })).toThrow(
      /An event cursor is positive seqs joined by "\/" \(like 12, 12\/3 or 12\/3.40\).*"x\/1"/,
    );
  });
});
