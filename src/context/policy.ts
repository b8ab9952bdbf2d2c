import type { Message, ToolSchema } from '../common/messages.ts';
import { messageUnits } from './estimate.ts';
import type { StoredSummary } from './store.ts';
import { buildView, summaryMessage } from './view.ts';

/** Share of the budget a routine compaction leaves the view at, so the next one is many turns away. */
export const COMPACTION_TARGET = 0.5;
/** After a provider said "prompt too long", cut deeper. */
export const FORCED_COMPACTION_TARGET = 0.3;
/** Room counted for the summary the compaction will write. */
export const SUMMARY_ALLOWANCE = 0.1;

export interface CutInput {
  stored: readonly Message[];
  summary?: StoredSummary | undefined;
  tools: readonly ToolSchema[];
  ratio: number;
  maxInputTokens: number;
  keepRecentTurns: number;
  force: boolean;
}

/**
 * Where the view of a compacted conversation starts: the earliest turn start that keeps at most
 * `keepRecentTurns` turns and leaves the request at half the budget (with room for the summary);
 * inside the current turn (before one of its steps) when that turn alone is too large; never
 * after the latest step. Undefined when nothing before that can be cut.
 */
export function planCut(input: CutInput): number | undefined {
  const { stored, summary } = input;
  const systemEnd = stored[0]?.role === 'system' ? 1 : 0;
  const start = Math.max(systemEnd, summary?.throughSeq ?? 0);
  const end = stored.length;
  let lastStep = end - 1;
  while (lastStep > start && stored[lastStep]!.role === 'tool') lastStep -= 1;
  if (lastStep <= start) return undefined;

  const target = input.maxInputTokens * (input.force ? FORCED_COMPACTION_TARGET : COMPACTION_TARGET);
  const allowance = input.maxInputTokens * SUMMARY_ALLOWANCE;
  const fits = (cut: number): boolean => {
    const placeholder: StoredSummary = {
      throughSeq: cut,
      text: '-',
      mode: 'summarize',
      compactions: 0,
      messages: 0,
    };
    const view = buildView({ ...input, summary: placeholder, budget: target });
    return (
      view.tokens - Math.ceil(messageUnits(summaryMessage(placeholder)) * input.ratio) + allowance <= target
    );
  };

  const lastTurn = stored.findLastIndex((message, i) => i > start && message.role === 'user');
  let turns = 0;
  const turnStarts: number[] = [];
  for (let i = end - 1; i > start; i--) {
    if (stored[i]!.role !== 'user') continue;
    turns += 1;
    if (turns <= input.keepRecentTurns) turnStarts.unshift(i);
  }
  for (const cut of turnStarts) if (fits(cut)) return cut;
  for (let cut = Math.max(start + 1, lastTurn + 1); cut <= lastStep; cut++) {
    if (stored[cut]!.role === 'assistant' && fits(cut)) return cut;
  }
  return lastStep;
}
