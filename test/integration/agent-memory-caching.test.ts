import { randomUUID } from 'node:crypto';
import { createAnthropic } from '@ai-sdk/anthropic';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryLongTermStore } from '../../src/long-term-memory/in-memory.ts';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import {
  AnthropicPromptCache,
  SONNET_PRICES,
  type CachedRequest,
} from '../support/providers/anthropic-cache.ts';
import { startAnthropicServer } from '../support/providers/anthropic-server.ts';
import { LONG_INSTRUCTIONS } from '../support/providers/long-instructions.ts';
import type { ProviderServer } from '../support/providers/scripted-provider.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

/** The share of a request's input the service read from its prompt cache. */
const readShare = ({ usage }: CachedRequest) =>
  usage.cache_read_input_tokens /
  (usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens);

describe('long-term memory keeps prompt caching working (the Anthropic stand-in implements the service caching rules)', () => {
  let server: ProviderServer | undefined;
  let env: TestWorker | undefined;
  const memory = new LongTermMemory({ store: new InMemoryLongTermStore() });
  afterAll(async () => {
    await env?.stop();
    await server?.close();
    await memory.close();
  });

  it("reads at least 85% of a chat's input from the cache from turn 2, with memory recalled into every turn", async () => {
    const cache = new AnthropicPromptCache(SONNET_PRICES);
    const said = [
      'I adopted a dog named Biscuit last spring.',
      'My sister Ana lives in Porto and visits every June.',
      'I run the Lisbon half marathon each March.',
    ];
    const asked = [
      "What is my dog's name?",
      'When does my sister visit?',
      'Which race do I run?',
      'Is Biscuit a dog?',
    ];
    server = await startAnthropicServer(
      [...said, ...asked].map((_, i) => ({ text: `Answer ${i + 1}.` })),
      undefined,
      cache,
    );
    const llm = createAnthropic({ apiKey: 'sk-ant-test', baseURL: `${server.url}/v1` })('claude-sonnet-4-5');
    env = await startTestWorker({
      agent: {
        llm,
        systemPrompt: LONG_INSTRUCTIONS,
        memory: { store: memory, resource: ({ sessionId }) => sessionId?.split('.')[0] },
      },
    });
    const user = `frank-${randomUUID().slice(0, 8)}`;
    const chat = (n: number) =>
      env!.agents.chatSession('agent', { sessionId: `${user}.${n}`, memoryStore: env!.memoryStore });
    // An earlier session, one fact a turn, each remembered.
    const first = chat(1);
    for (const fact of said) {
      await first.send(fact);
      await expect
        .poll(
          async () =>
            (await memory.recall({ resource: user, query: fact, limit: 50 })).filter(
              (hit) => hit.text === fact,
            ).length,
          { timeout: 15_000 },
        )
        .toBe(1);
    }
    const second = chat(2);
    for (const question of asked) await second.send(question);
    const requests = cache.requests.slice(said.length);
    expect(requests).toHaveLength(asked.length);
    // Every turn of the second session got something recalled, in its own user message.
    for (const body of server.bodies.slice(said.length)) {
      const messages = (body as { messages: Array<{ role: string; content: Array<{ text?: string }> }> })
        .messages;
      expect(
        messages
          .at(-1)!
          .content.map((part) => part.text)
          .join(''),
      ).toMatch(/^Remembered from earlier conversations/);
    }
    const shares = requests.map(readShare);
    for (const share of shares.slice(1)) expect(share).toBeGreaterThanOrEqual(0.85);
    // Byte-stable: each turn sends what the turn before cached unchanged, recalled memory included.
    for (const [i, request] of requests.entries()) {
      if (i === 0) continue;
      const previous = requests[i - 1]!;
      const written = previous.breakpoints.at(-1)!.index;
      expect(request.blocks.slice(0, written + 1)).toEqual(previous.blocks.slice(0, written + 1));
    }
    console.log(
      `memory on, turns 2-${asked.length}: input read from the cache ${shares
        .slice(1)
        .map((s) => s.toFixed(3))
        .join(', ')}`,
    );
  });
});
