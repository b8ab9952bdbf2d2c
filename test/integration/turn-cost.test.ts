import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { ActionCounter } from '../support/action-count.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const namespace = inject('costNamespace');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const counter = new ActionCounter(inject('temporalMetricsUrl'), namespace);
const costOf = (work: () => Promise<unknown>) => counter.costOf(work);

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
