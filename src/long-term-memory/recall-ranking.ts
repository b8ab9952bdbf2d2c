import type { MemoryMatch } from './types.ts';

/** Reciprocal rank fusion's constant: a hit at rank r of a list adds 1 / (RRF_K + r). */
const RRF_K = 60;
/** How much a session counts: its best hits' fused scores, summed, times this, are added to each of its hits. */
const SESSION_WEIGHT = Number(process.env.LTM_SESSION_WEIGHT ?? 0.3);
const SESSION_HITS = Number(process.env.LTM_SESSION_HITS ?? 3);

/**
 * Joins ranked lists of matches into one, best first: each list adds 1 / (60 + rank) to a message's
 * score (reciprocal rank fusion, which needs no common scale between BM25 and cosine similarity),
 * then each message gains a share of its session's score (the sum of the session's best few), so
 * that the turns of the session a question is about rise together.
 */
export function fuse(lists: Array<{ matches: MemoryMatch[]; weight: number }>, limit: number): MemoryMatch[] {
  const fused = new Map<string, MemoryMatch>();
  for (const { matches, weight } of lists)
    matches.forEach((match, rank) => {
      const seen = fused.get(match.messageId);
      const add = weight / (RRF_K + rank + 1);
      if (seen) seen.score += add;
      else fused.set(match.messageId, { ...match, score: add });
    });
  const bySession = new Map<string, number[]>();
  for (const match of fused.values()) {
    const scores = bySession.get(match.sessionId) ?? [];
    scores.push(match.score);
    bySession.set(match.sessionId, scores);
  }
  const sessionScore = new Map(
    [...bySession].map(([sessionId, scores]) => [
      sessionId,
      scores
        .sort((a, b) => b - a)
        .slice(0, SESSION_HITS)
        .reduce((sum, score) => sum + score, 0),
    ]),
  );
  return [...fused.values()]
    .map((match) => ({ ...match, score: match.score + SESSION_WEIGHT * sessionScore.get(match.sessionId)! }))
    .sort((a, b) => b.score - a.score || b.at - a.at)
    .slice(0, limit);
}
