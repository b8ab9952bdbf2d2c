import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryLongTermStore } from '../../src/long-term-memory/in-memory.ts';
import { findLocalEmbeddingModel, localEmbedder } from '../../src/long-term-memory/local-embedder.ts';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import { SqliteLongTermStore } from '../../src/long-term-memory/sqlite.ts';
import type { LongTermMemoryStore } from '../../src/long-term-memory/types.ts';
import { cosine } from '../../src/long-term-memory/vectors.ts';
import { describeRecallByMeaning } from '../support/long-term-memory-vectors-behaviour.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describeRecallByMeaning('InMemoryLongTermStore', async () => ({ store: new InMemoryLongTermStore() }));

describeRecallByMeaning('SqliteLongTermStore', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'long-term-memory-vectors-'));
  dirs.push(dir);
  const file = join(dir, 'memory.sqlite');
  return {
    store: new SqliteLongTermStore({ path: file }),
    vectorCount: async () => {
      const db = new DatabaseSync(file);
      try {
        return (db.prepare('SELECT count(*) AS n FROM ltm_vectors').get() as { n: number }).n;
      } finally {
        db.close();
      }
    },
  };
});

describe('the offline embedder', () => {
  it('runs from the user cache and puts similar sentences closer than unrelated ones', async () => {
    const modelPath = await findLocalEmbeddingModel({ install: true });
    expect(modelPath).toMatch(/all-minilm-l6-v2-q8_0\.gguf$/);
    // Fetched once: found in the cache without installing.
    expect(await findLocalEmbeddingModel()).toBe(modelPath);
    const embedder = localEmbedder({ modelPath });
    try {
      const [dog, puppy, market, empty] = await embedder.embed([
        'I adopted a dog named Biscuit last week',
        'What is the name of my new puppy?',
        'The stock market fell sharply today',
        '',
      ]);
      expect(dog).toHaveLength(384);
      expect(cosine(dog!, puppy!)).toBeGreaterThan(0.4);
      expect(cosine(dog!, puppy!)).toBeGreaterThan(cosine(dog!, market!) + 0.3);
      expect(empty).toHaveLength(384);
      // A text longer than the model reads is cut, not refused.
      expect(await embedder.embed(['word '.repeat(2000)])).toHaveLength(1);
    } finally {
      await embedder.close?.();
    }
  }, 600_000);

  it('embeds several texts at once through several contexts, each text as one context alone embeds it', async () => {
    const modelPath = await findLocalEmbeddingModel({ install: true });
    const texts = Array.from(
      { length: 7 },
      (_, i) => `Turn ${i}: we talked about ${['dogs', 'tax', 'rain'][i % 3]}`,
    );
    const one = localEmbedder({ modelPath, contexts: 1 });
    const three = localEmbedder({ modelPath, contexts: 3 });
    try {
      const usage = { tokens: 0 };
      const alone = await one.embed(texts);
      const together = await three.embed(texts, usage);
      expect(together).toHaveLength(texts.length);
      together.forEach((vector, i) => expect(cosine(vector, alone[i]!)).toBeGreaterThan(0.9999));
      expect(usage.tokens).toBeGreaterThan(texts.length * 5);
    } finally {
      await one.close?.();
      await three.close?.();
    }
    expect(() => localEmbedder({ contexts: 0 })).toThrow(/contexts must be a whole number of at least 1/);
  }, 600_000);

  it('names a missing TOOLKIT_AGENT_EMBEDDING_MODEL file', async () => {
    await expect(
      findLocalEmbeddingModel({ env: { TOOLKIT_AGENT_EMBEDDING_MODEL: '/nowhere/model.gguf' } }),
    ).rejects.toThrow(/TOOLKIT_AGENT_EMBEDDING_MODEL is \/nowhere\/model.gguf, which does not exist/);
  });
});

describe('LongTermMemory with an AI SDK embedding model', () => {
  it('embeds through embedMany and stores vectors under <provider>:<model id>', async () => {
    const local = localEmbedder();
    const calls: string[][] = [];
    // A provider model of the AI SDK's embedding interface that answers with the offline model's vectors.
    const model: EmbeddingModelV4 = {
      specificationVersion: 'v4',
      provider: 'offline',
      modelId: 'minilm',
      maxEmbeddingsPerCall: 2,
      supportsParallelCalls: false,
      async doEmbed({ values }) {
        calls.push(values);
        return {
          embeddings: (await local.embed(values)).map((vector) => Array.from(vector)),
          usage: { tokens: 10 * values.length },
          warnings: [],
        };
      },
    };
    const store = new InMemoryLongTermStore();
    const memory = new LongTermMemory({ store, embedder: model });
    const spent = { tokens: 0 };
    await memory.remember(
      {
        resource: 'ana',
        sessionId: 's',
        at: 0,
        messages: [
          { id: 'dog', role: 'user', content: 'I adopted a dog named Biscuit' },
          { id: 'car', role: 'user', content: 'My car needs new tyres' },
          { id: 'rain', role: 'user', content: 'It rained all weekend' },
        ],
      },
      { usage: spent },
    );
    // The model's usage.tokens of every call embedMany made, added up.
    expect(spent.tokens).toBe(30);
    expect(memory.embedderId).toBe('offline:minilm');
    // embedMany splits by the model's maxEmbeddingsPerCall.
    expect(calls.slice(0, 2)).toEqual([
      ['I adopted a dog named Biscuit', 'My car needs new tyres'],
      ['It rained all weekend'],
    ]);
    expect(await store.withoutVectors('ana', 'offline:minilm', 10)).toEqual([]);
    const hits = await memory.recall(
      { resource: 'ana', query: 'puppy', limit: 1, mode: 'meaning' },
      { usage: spent },
    );
    expect(hits.map((hit) => hit.messageId)).toEqual(['dog']);
    expect(spent.tokens).toBe(40);
    await memory.close();
    await local.close?.();
  }, 600_000);

  it('refuses what is not an embedder, and a store that keeps no vectors', () => {
    const store = new InMemoryLongTermStore();
    expect(() => new LongTermMemory({ store, embedder: 42 as never })).toThrow(
      /embedder must be an AI SDK embedding model/,
    );
    const wordsOnly: LongTermMemoryStore = {
      upsert: (entries) => store.upsert(entries),
      search: (search) => store.search(search),
      delete: (target) => store.delete(target),
    };
    expect(() => new LongTermMemory({ store: wordsOnly, embedder: localEmbedder() })).toThrow(
      /has no putVectors, withoutVectors, searchVectors/,
    );
  });
});
