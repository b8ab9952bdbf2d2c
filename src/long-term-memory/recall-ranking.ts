import type { MemoryMatch } from './types.ts';

/** How much a session counts: the sum of its best hits' scores, times this, is added to each of its hits. */
const SESSION_WEIGHT = 0.3;
/** How many of a session's best hits make its score. */
const SESSION_HITS = 3;
/** How much a message gains of its best neighbour's score: a message of its session said this close in time. */
const NEIGHBOUR_WEIGHT = 0.2;
const NEIGHBOUR_MS = 60_000;

/** One search's matches, best first, and how much they count beside the others. */
export interface RankedList {
  matches: MemoryMatch[];
  weight: number;
}

/**
 * Joins the lists of several searches into one, best first. Each list's scores (BM25, cosine
 * similarity: no common scale) are divided by the list's best and weighted, and a message found
 * by several searches adds them up. Then each message gains a share of its best neighbour's score
 * (a message of the same session said within a minute of it: the question a hit answers, the answer
 * to a hit's question), and a share of its session's score (the sum of the session's best three), so
 * that the turns of the session a question is about rise together. Each step was kept for what it
 * added on the LoCoMo bench (see docs/memory.md).
 */
export function fuse(lists: RankedList[], limit: number): MemoryMatch[] {
  const fused = new Map<string, MemoryMatch>();
  for (const { matches, weight } of lists) {
    const top = Math.max(...matches.map((match) => match.score));
    for (const match of matches) {
      // The best of a list is 1; a negative score (a cosine similarity) counts 0.
      const add = weight * (top > 0 ? Math.max(0, match.score) / top : 1);
      const seen = fused.get(match.messageId);
      if (seen) seen.score += add;
      else fused.set(match.messageId, { ...match, score: add });
    }
  }
  const matches = withNeighbours([...fused.values()]);
  const sessionScore = new Map(
    [...bySession(matches)].map(([sessionId, inSession]) => [
      sessionId,
      inSession
        .map((match) => match.score)
        .sort((a, b) => b - a)
        .slice(0, SESSION_HITS)
        .reduce((sum, score) => sum + score, 0),
    ]),
  );
  return matches
    .map((match) => ({ ...match, score: match.score + SESSION_WEIGHT * sessionScore.get(match.sessionId)! }))
    .sort((a, b) => b.score - a.score || b.at - a.at)
    .slice(0, limit);
}

/** The matches, each with {@link NEIGHBOUR_WEIGHT} of its best neighbour's score added (neighbours among the matches only). */
function withNeighbours(matches: MemoryMatch[]): MemoryMatch[] {
  const sessions = bySession(matches);
  return matches.map((match) => {
    let best = 0;
    for (const other of sessions.get(match.sessionId)!)
      if (other !== match && Math.abs(other.at - match.at) <= NEIGHBOUR_MS)
        best = Math.max(best, other.score);
    return { ...match, score: match.score + NEIGHBOUR_WEIGHT * best };
  });
}

/** The matches by their session, each session's in the order given. */
function bySession(matches: MemoryMatch[]): Map<string, MemoryMatch[]> {
  const sessions = new Map<string, MemoryMatch[]>();
  for (const match of matches) {
    const inSession = sessions.get(match.sessionId);
    if (inSession) inSession.push(match);
    else sessions.set(match.sessionId, [match]);
  }
  return sessions;
}
