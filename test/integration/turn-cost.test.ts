import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const namespace = inject('costNamespace');
const metricsUrl = inject('temporalMetricsUrl');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's billable actions in this test's namespace so far, by operation (Temporal's own count). */
async function actions(): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('action{') || !line.includes(`namespace="${namespace}"`)) continue;
    const operation = /operation="([^"]*)"/.exec(line)?.[1] ?? '?';
    counts.set(operation, (counts.get(operation) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/**
 * The counts once the server has reported everything done so far: it adds some a moment after it
 * answered, so they are read until two reads a second apart agree (at most 15 reads).
 */
async function settledActions(): Promise<Map<string, number>> {
  let last = await actions();
  for (let read = 0; read < 15; read++) {
    await sleep(1_000);
    const now = await actions();
    if (JSON.stringify([...now].sort()) === JSON.stringify([...last].sort())) return now;
    last = now;
  }
  throw new Error(`The server's action counts at ${metricsUrl} did not settle in 15 s.`);
}

/** The actions `work` cost, in all and by operation. */
async function costOf(work: () => Promise<unknown>): Promise<{ total: number; by: Record<string, number> }> {
  const before = await settledActions();
  await work();
  const after = await settledActions();
  const by: Record<string, number> = {};
  for (const [operation, count] of after) {
    const added = count - (before.get(operation) ?? 0);
    if (added) by[operation] = added;
  }
  return { total: Object.values(by).reduce((sum, n) => sum + n, 0), by };
}

const TOKENS = Array.from({ length: 1_000 }, (_, i) => `t${i} `);
const TEXT = TOKENS.join('');

/** A model step that writes the 1,000 tokens over about 2 s, then answers with them. */
async function writeThousand(request: ModelRequest) {
  for (let i = 0; i < TOKENS.length; i++) {
    request.onTextDelta?.(TOKENS[i]!);
    if (i % 50 === 49) await sleep(100);
  }
  return { text: TEXT };
}

async function textOf(events: AsyncIterable<AgentEvent>): Promise<string> {
  let text = '';
  for await (const event of events) if (event.type === 'text_delta') text += String(event.payload.text);
  return text;
}

describe('what a streamed turn costs in Temporal actions', () => {
  let env: TestWorker;
  beforeAll(async () => {
    env = await startTestWorker(
      {
        plain: {
          llm: new ScriptedModel([
            { toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'add_1' }] },
            { text: 'three' },
          ]),
          tools: [new AddTool()],
        },
        writer: { llm: new ScriptedModel([writeThousand]) },
        // The same text without live text: the history streaming is compared with.
        silent: { llm: new ScriptedModel([writeThousand]), liveText: false },
        chatty: { llm: new ScriptedModel([{ text: 'hello' }, writeThousand]) },
      },
      { namespace },
    );
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('a run or chat turn streaming 1,000 tokens to a live reader costs at most 3x a plain one-tool run, and little history', async () => {
    const { agents } = env;
    const plain = await costOf(() => agents.run('plain', 'Add 1 and 2'));

    let streamedText = '';
    let runId = '';
    const streamed = await costOf(async () => {
      const handle = await agents.start('writer', 'Write 1,000 tokens');
      runId = handle.workflowId;
      streamedText = await textOf(handle.events());
      await handle.result();
    });
    const silent = await agents.start('silent', 'Write 1,000 tokens');
    await silent.result();

    const chat = agents.chatSession('chatty', { sessionId: randomUUID() });
    await chat.send('Hello');
    let turnText = '';
    const turn = await costOf(async () => {
      turnText = await textOf(chat.stream('Write 1,000 tokens'));
    });

    const history = async (workflowId: string) => {
      const { historyLength, historySize } = await agents.client.workflow.getHandle(workflowId).describe();
      return { events: historyLength, bytes: historySize ?? 0 };
    };
    const [withText, withoutText] = [await history(runId), await history(silent.workflowId)];
    console.log(
      `actions: a plain one-tool run ${plain.total} ${JSON.stringify(plain.by)}; a run streaming 1,000 tokens ` +
        `to one live reader ${streamed.total} ${JSON.stringify(streamed.by)}; a chat turn streaming 1,000 tokens ` +
        `${turn.total} ${JSON.stringify(turn.by)}. History streaming adds: ${withText.events - withoutText.events} ` +
        `events, ${withText.bytes - withoutText.bytes} bytes per 1,000 tokens`,
    );
    expect(streamedText).toBe(TEXT);
    expect(turnText).toBe(TEXT);
    expect(plain.total).toBeGreaterThan(0);
    expect(streamed.total).toBeLessThanOrEqual(3 * plain.total);
    expect(turn.total).toBeLessThanOrEqual(3 * plain.total);
    // The reader reads the run at its start and once the step has closed, not while text comes.
    expect(streamed.by.QueryWorkflow ?? 0).toBeLessThanOrEqual(3);
    expect(turn.by.QueryWorkflow ?? 0).toBeLessThanOrEqual(3);
    expect(withText.events - withoutText.events).toBeLessThanOrEqual(20);
    expect(withText.bytes - withoutText.bytes).toBeLessThanOrEqual(40_000);
  }, 90_000);
});
