import { describe, expect, it } from 'vitest';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import type { LongTermMemoryStore } from '../../src/long-term-memory/types.ts';

/**
 * How a store under test is made, and, for a store with an index of its own to look into, how many
 * entries of that index still hold any of `words` (read past the store's API).
 */
export interface StoreUnderTest {
  store: LongTermMemoryStore;
  indexedWith?: (words: string[]) => Promise<number>;
}

/** What every long-term memory store must do, run against a fresh store from `make` per test. */
export function describeLongTermMemory(name: string, make: () => Promise<StoreUnderTest>): void {
  describe(`LongTermMemory over ${name}`, () => {
    async function memory(): Promise<{
      memory: LongTermMemory;
      indexedWith?: StoreUnderTest['indexedWith'];
    }> {
      const { store, indexedWith } = await make();
      return { memory: new LongTermMemory({ store }), indexedWith };
    }

    it('recalls a message of an earlier session by its words, best match first', async () => {
      const { memory: m } = await memory();
      await m.remember({
        resource: 'ana',
        sessionId: 's1',
        at: '2024-05-08T13:56:00Z',
        messages: [
          { id: 'm1', role: 'user', content: 'I adopted a dog named Biscuit last week' },
          { id: 'm2', role: 'assistant', content: 'Congratulations on the new puppy!' },
          { id: 'm3', role: 'user', content: 'My sister lives in Lisbon' },
        ],
      });
      const hits = await m.recall({ resource: 'ana', query: 'What is the name of my dog?', limit: 5 });
      expect(hits[0]).toMatchObject({
        messageId: 'm1',
        sessionId: 's1',
        text: 'I adopted a dog named Biscuit last week',
        at: new Date('2024-05-08T13:56:00Z'),
      });
      expect(hits.map((hit) => hit.messageId)).not.toContain('m3');
      expect(hits[0]!.score).toBeGreaterThan(0);
      await m.close();
    });

    it('never recalls one resource’s messages for another', async () => {
      const { memory: m } = await memory();
      await m.remember({
        resource: 'ana',
        sessionId: 's',
        at: 0,
        messages: [{ role: 'user', content: 'my locker code is tangerine' }],
      });
      await m.remember({
        resource: 'bo',
        sessionId: 's',
        at: 0,
        messages: [{ role: 'user', content: 'I like tangerine juice' }],
      });
      const ana = await m.recall({ resource: 'ana', query: 'tangerine', limit: 10 });
      const bo = await m.recall({ resource: 'bo', query: 'tangerine', limit: 10 });
      expect(ana.map((hit) => hit.text)).toEqual(['my locker code is tangerine']);
      expect(bo.map((hit) => hit.text)).toEqual(['I like tangerine juice']);
      expect(await m.recall({ resource: 'cy', query: 'tangerine', limit: 10 })).toEqual([]);
      await m.close();
    });

    it('keeps to since and until, both inclusive', async () => {
      const { memory: m } = await memory();
      for (const [sessionId, at] of [
        ['jan', '2024-01-15T00:00:00Z'],
        ['may', '2024-05-15T00:00:00Z'],
        ['sep', '2024-09-15T00:00:00Z'],
      ] as const)
        await m.remember({
          resource: 'ana',
          sessionId,
          at,
          messages: [{ role: 'user', content: `went hiking in ${sessionId}` }],
        });
      const sessions = async (since?: string, until?: string): Promise<string[]> =>
        (await m.recall({ resource: 'ana', query: 'hiking', limit: 10, since, until }))
          .map((hit) => hit.sessionId)
          .sort();
      expect(await sessions()).toEqual(['jan', 'may', 'sep']);
      expect(await sessions('2024-05-15T00:00:00Z')).toEqual(['may', 'sep']);
      expect(await sessions(undefined, '2024-05-15T00:00:00Z')).toEqual(['jan', 'may']);
      expect(await sessions('2024-02-01T00:00:00Z', '2024-06-01T00:00:00Z')).toEqual(['may']);
      await m.close();
    });

    it('replaces a message remembered again under its id, and a retried call without ids stores nothing twice', async () => {
      const { memory: m } = await memory();
      await m.remember({
        resource: 'ana',
        sessionId: 's',
        at: 1,
        messages: [{ id: 'x', role: 'user', content: 'I live in Oslo' }],
      });
      await m.remember({
        resource: 'ana',
        sessionId: 's',
        at: 2,
        messages: [{ id: 'x', role: 'user', content: 'I live in Bergen' }],
      });
      expect(await m.recall({ resource: 'ana', query: 'Oslo', limit: 10 })).toEqual([]);
      const bergen = await m.recall({ resource: 'ana', query: 'live', limit: 10 });
      expect(bergen.map((hit) => [hit.messageId, hit.text, hit.at.getTime()])).toEqual([
        ['x', 'I live in Bergen', 2],
      ]);

      const turn = {
        resource: 'ana',
        sessionId: 's2',
        at: '2024-03-01T10:00:00Z',
        messages: [
          { role: 'user' as const, content: 'book a table for sushi' },
          { role: 'assistant' as const, content: 'Booked sushi for two' },
        ],
      };
      const first = await m.remember(turn);
      const retried = await m.remember(turn);
      expect(retried).toEqual(first);
      expect(first).toEqual(['s2/2024-03-01T10:00:00.000Z/0', 's2/2024-03-01T10:00:00.000Z/1']);
      const sushi = await m.recall({ resource: 'ana', query: 'sushi', limit: 10 });
      expect(sushi.map((hit) => hit.messageId).sort()).toEqual(first);
      await m.close();
    });

    it('forgets one message, then one session, then the whole resource, leaving nothing recallable', async () => {
      const { memory: m, indexedWith } = await memory();
      const remember = (sessionId: string, id: string, content: string) =>
        m.remember({ resource: 'ana', sessionId, at: 0, messages: [{ id, role: 'user', content }] });
      await remember('s1', 'a', 'passport number is K1234');
      await remember('s1', 'b', 'passport expires in June');
      await remember('s2', 'c', 'renew the passport soon');
      await remember('s3', 'd', 'passport photo booth downtown');
      await m.remember({
        resource: 'bo',
        sessionId: 's1',
        at: 0,
        messages: [{ role: 'user', content: 'passport lost' }],
      });
      const ids = async (): Promise<string[]> =>
        (await m.recall({ resource: 'ana', query: 'passport', limit: 10 }))
          .map((hit) => hit.messageId)
          .sort();

      expect(await m.forget({ resource: 'ana', messageId: 'a' })).toBe(1);
      expect(await ids()).toEqual(['b', 'c', 'd']);
      expect(await m.forget({ resource: 'ana', sessionId: 's1' })).toBe(1);
      expect(await ids()).toEqual(['c', 'd']);
      expect(await m.forget({ resource: 'ana', sessionId: 's2', messageId: 'd' })).toBe(0);
      expect(await m.forget({ resource: 'ana' })).toBe(2);
      expect(await ids()).toEqual([]);
      expect(await m.recall({ resource: 'bo', query: 'passport', limit: 10 })).toHaveLength(1);
      // Neither the table nor the full-text index keeps a copy of what was forgotten.
      if (indexedWith) expect(await indexedWith(['K1234', 'expires', 'renew'])).toBe(0);
      await m.close();
    });

    it('finds a reply by the words of the message said before it, ranked below that message, and forgets that copy with it', async () => {
      const { memory: m, indexedWith } = await memory();
      const say = (id: string, minute: number, content: string) =>
        m.remember({
          resource: 'ana',
          sessionId: 's1',
          at: Date.UTC(2024, 4, 8, 13, minute),
          messages: [{ id, role: 'user', content }],
        });
      // One call a turn, as an agent remembers: a message's context is the one said just before it.
      await say('question', 0, 'Which city did your sister move to?');
      await say('reply', 1, 'Lisbon, in March');
      await say('later', 2, 'And she found a flat near the river');
      await m.remember({
        resource: 'ana',
        sessionId: 's2',
        at: Date.UTC(2024, 4, 9),
        messages: [{ id: 'elsewhere', role: 'user', content: 'Nothing about that here' }],
      });
      const ids = async (query: string): Promise<string[]> =>
        (await m.recall({ resource: 'ana', query, limit: 10 })).map((hit) => hit.messageId);
      expect(await ids('sister city')).toEqual(['question', 'reply']);
      expect(await ids('flat river')).toEqual(['later']);
      expect(await m.forget({ resource: 'ana', messageId: 'question' })).toBe(1);
      expect(await ids('sister city')).toEqual([]);
      if (indexedWith) expect(await indexedWith(['sister'])).toBe(0);
      await m.close();
    });

    it('finds nothing for a query without words, and reads FTS syntax in a query as plain words', async () => {
      const { memory: m } = await memory();
      await m.remember({
        resource: 'ana',
        sessionId: 's',
        at: 0,
        messages: [{ role: 'user', content: 'NEAR the AND gate' }],
      });
      expect(await m.recall({ resource: 'ana', query: '?! ...', limit: 5 })).toEqual([]);
      const hits = await m.recall({ resource: 'ana', query: 'gate" OR NEAR(*', limit: 5 });
      expect(hits.map((hit) => hit.text)).toEqual(['NEAR the AND gate']);
      await m.close();
    });
  });
}

/**
 * A store opened on what an earlier version left (a question 'old' of session 's1' of 'ana',
 * indexed by its text only): a reply remembered now is found by the question's words too, after it.
 */
export async function expectReplyFoundByOldQuestion(memory: LongTermMemory): Promise<void> {
  await memory.remember({
    resource: 'ana',
    sessionId: 's1',
    at: 60_000,
    messages: [{ id: 'new', role: 'user', content: 'Lisbon, in March' }],
  });
  const hits = await memory.recall({ resource: 'ana', query: 'sister city', limit: 5 });
  expect(hits.map((hit) => hit.messageId)).toEqual(['old', 'new']);
}
