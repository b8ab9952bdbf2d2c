import { describe, expect, it } from 'vitest';
import { fuse } from '../../src/long-term-memory/recall-ranking.ts';
import type { MemoryMatch } from '../../src/long-term-memory/types.ts';

const MINUTE = 60_000;
const at = Date.UTC(2023, 4, 8, 13, 56);
const match = (messageId: string, score: number, offset: number, sessionId = 's1'): MemoryMatch => ({
  messageId,
  sessionId,
  text: messageId,
  at: at + offset,
  score,
});

describe('fuse: the ranking of recalled messages', () => {
  it("lifts a hit's neighbour (its session, said within a minute), and no message further away", () => {
    const question = match('question', 10, 0);
    const answer = match('answer', 2.8, 0.5 * MINUTE); // the reply to the best hit, half a minute later
    const later = match('later', 2.9, 2 * MINUTE);
    const unrelated = match('unrelated', 3, 10 * MINUTE);
    const ranked = fuse([{ matches: [question, unrelated, later, answer], weight: 1 }], 10);
    expect(ranked.map((hit) => hit.messageId)).toEqual(['question', 'answer', 'unrelated', 'later']);
  });

  it('gives nothing to a message of another session said at the same time', () => {
    const hit = match('hit', 10, 0, 's1');
    const elsewhere = match('elsewhere', 2.8, 0, 's2');
    const own = match('own', 3, 10 * MINUTE, 's2');
    const ranked = fuse([{ matches: [hit, own, elsewhere], weight: 1 }], 10);
    expect(ranked.map((h) => h.messageId)).toEqual(['hit', 'own', 'elsewhere']);
  });
});
