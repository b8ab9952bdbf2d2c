import { randomUUID } from 'node:crypto';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { serveMcp, type McpServing } from '../../src/mcp/serve.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { queuedModel } from '../support/queued-model.ts';
import { AddTool } from './tools.ts';

const TOKEN = `mcp-approvals-token-${randomUUID()}`;
const auth = { headers: { authorization: `Bearer ${TOKEN}` } };

/** What the model was last told: the call's result it answers from. */
const lastContent = (request: ModelRequest | undefined) => String(request?.messages.at(-1)?.content);

/** A call that needs approval, through serveMcp, from the 2.x SDK's client at 2026-07-28. */
describe('serveMcp asks a 2026-07-28 client to approve a call through input_required', () => {
  const llm = queuedModel();
  const add = new AddTool();
  const taskQueue = `mcp-approvals-${randomUUID()}`;
  let serving: McpServing;
  let client: ModernClient;
  let agents: AgentClient;
  /** What the client's user answers each elicitation (a form: approved, reason). */
  let answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | boolean> };
  const asked: Array<{ mode?: string; message: string; requestedSchema?: unknown }> = [];

  beforeAll(async () => {
    serving = await serveMcp({
      agents: {
        calc: { llm, tools: [add], approval: { tools: ['add'] }, autoProjectSkills: false },
      },
      temporal: { address: inject('temporalAddress'), taskQueue },
      transport: { port: 0, bearerToken: TOKEN },
      worker: {
        memoryStore: new InMemoryMemoryStore(),
        workflowBundle: { codePath: inject('workflowBundlePath') },
      },
    });
    client = new ModernClient(
      { name: 'approver', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params);
      return answer;
    });
    await client.connect(new ModernTransport(new URL(serving.url!), { requestInit: auth }));
    agents = await AgentClient.connect({ address: inject('temporalAddress'), taskQueue });
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await agents?.close();
    await serving?.close();
  });

  const call = (prompt: string, progress: string[]) =>
    client.callTool(
      { name: 'run_calc', arguments: { prompt } },
      { onprogress: (update) => void progress.push(String(update.message)) },
    );

  it('approved in the form, the waiting call runs once and the same call answers', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    answer = { action: 'accept', content: { approved: true } };
    llm.push({ toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'a1' }] }, { text: 'It is 5.' });
    const progress: string[] = [];
    const result = await call('What is 2 + 3?', progress);
    expect(asked).toEqual([
      expect.objectContaining({
        message: 'Allow add to run with {"a":2,"b":3}?',
        requestedSchema: expect.objectContaining({ required: ['approved'] }) as unknown,
      }),
    ]);
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'It is 5.' }]);
    expect(lastContent(llm.calls.at(-1))).toBe('5');
    expect(add.ran).toEqual([{ a: 2, b: 3 }]);
    // One run: the retried call read on from the approval, it started no other.
    const workflowId = (result.structuredContent as { workflow_id: string }).workflow_id;
    expect(progress.filter((message) => message.startsWith('Run started'))).toEqual([
      `Run started: workflow ${workflowId}`,
    ]);
    expect(progress.filter((message) => message.startsWith('approval_requested:'))).toHaveLength(1);
    expect(progress).toContain('approval_granted: add was approved');
  });

  it('declined (approved: false, with a reason), the call does not run and the model is told why', async () => {
    answer = { action: 'accept', content: { approved: false, reason: 'not today' } };
    llm.push({ toolCalls: [{ name: 'add', args: { a: 1, b: 1 }, id: 'a2' }] }, { text: 'Not then.' });
    const result = await call('What is 1 + 1?', []);
    expect(result.content).toEqual([{ type: 'text', text: 'Not then.' }]);
    expect(lastContent(llm.calls.at(-1))).toBe('declined: not today');
    expect(add.ran).toEqual([{ a: 2, b: 3 }]);
  });

  it('cancelled, the call ends saying the run keeps waiting, and a decision made elsewhere finishes it', async () => {
    answer = { action: 'cancel' };
    llm.push({ toolCalls: [{ name: 'add', args: { a: 4, b: 4 }, id: 'a3' }] }, { text: 'It is 8.' });
    const result = await call('What is 4 + 4?', []);
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/^No decision on call a3 came: run \S+ keeps waiting for it\.$/);
    const workflowId = /run (\S+) keeps waiting/.exec(text)![1]!;
    const run = agents.getHandle(workflowId);
    await run.approve('a3');
    expect((await run.result()).output).toBe('It is 8.');
    expect(add.ran).toEqual([
      { a: 2, b: 3 },
      { a: 4, b: 4 },
    ]);
  });
});
