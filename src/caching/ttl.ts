import type { CacheTtl, CachingOption } from './options.ts';

/** What a step knows of the wait before the conversation's next step. */
export interface WaitOutlook {
  /** The agent has tools that wait for a person's approval or for a user's grant. */
  waitsForPeople: boolean;
  /** The step is a chat session's: its next turn comes when its person writes. */
  chat: boolean;
}

/**
 * The TTL of a step's breakpoints. An explicit `ttl` wins. `'auto'`: 1 hour when the next step may
 * come more than 5 minutes later, which is when the 1-hour write pays: a 1-hour write costs 2× the
 * input price against 1.25× for a 5-minute one, while a prefix whose 5-minute entry expired is
 * written again in full (1.25×) instead of read (0.1×); so the extra 0.75× pays as soon as more than
 * about two waits in three outlast 5 minutes. Runs of agents with approval or authorization waits,
 * and chat sessions, are taken to be such runs; other tool loops step within seconds and keep 5 minutes.
 */
export function cacheTtl(option: Exclude<CachingOption, false>, outlook: WaitOutlook): CacheTtl {
  const ttl = option === 'auto' ? 'auto' : (option.ttl ?? 'auto');
  if (ttl !== 'auto') return ttl;
  return outlook.waitsForPeople || outlook.chat ? '1h' : '5m';
}
