import type { WriteAttempt } from '../memory/types.ts';
import { CHARS_PER_TOKEN } from './estimate.ts';
import { planCut } from './policy.ts';
import { loadContextState, type ContextSource } from './state.ts';
import { writeSummary, type StoredSummary } from './store.ts';
import { summarize } from './summarize.ts';
import type { CompactionResult } from './types.ts';
import { buildView } from './view.ts';

export interface CompactOptions extends ContextSource {
  /** After a provider's "prompt too long": cut deeper. */
  force: boolean;
  /** The compaction activity's attempt: an older attempt than the one that stored the summary leaves it. */
  attempt: WriteAttempt;
  signal?: AbortSignal;
  progress?: () => void;
}

/**
 * One compaction (the `compactContext` activity): chooses where the view will start (see
 * {@link planCut}), summarizes what lies between the previous summary and there onto that summary
 * (or, with `truncate`, just drops it), and stores the new summary beside the conversation. The
 * conversation itself is not touched. Answers numbers only.
 */
export async function compactConversation(options: CompactOptions): Promise<CompactionResult> {
  const { settings, store, conversationId } = options;
  const mode = settings.compaction === 'truncate' ? 'truncate' : 'summarize';
  const state = await loadContextState(options);
  const { stored, summary, ratio, limit } = state;
  const before = buildView({ ...state, tools: options.tools, budget: state.viewBudget }).tokens;
  const unchanged: CompactionResult = {
    before_tokens: before,
    after_tokens: before,
    messages_summarized: 0,
    mode,
    compactions: summary?.compactions ?? 0,
    model_calls: 0,
  };
  const cut = planCut({
    stored,
    summary,
    tools: options.tools,
    ratio,
    maxInputTokens: limit,
    keepRecentTurns: settings.keepRecentTurns,
    force: options.force,
  });
  if (cut === undefined) return unchanged;
  const from = Math.max(stored[0]?.role === 'system' ? 1 : 0, summary?.throughSeq ?? 0);
  const compacted = stored.slice(from, cut);
  let text = summary?.text ?? '';
  let calls = 0;
  if (mode === 'summarize') {
    ({ text, calls } = await summarize({
      model: options.model,
      prompt: settings.summaryPrompt,
      previous: summary?.text,
      messages: compacted,
      maxInputTokens: limit,
      tokensPerChar: ratio / CHARS_PER_TOKEN,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.progress ? { progress: options.progress } : {}),
    }));
  }
  const next: StoredSummary = {
    throughSeq: cut,
    text,
    mode,
    compactions: (summary?.compactions ?? 0) + 1,
    messages: (summary?.messages ?? 0) + compacted.length,
  };
  await writeSummary(store, conversationId, next, options.attempt);
  const after = buildView({ ...state, summary: next, tools: options.tools, budget: state.viewBudget }).tokens;
  return {
    before_tokens: before,
    after_tokens: after,
    messages_summarized: compacted.length,
    mode,
    compactions: next.compactions,
    model_calls: calls,
  };
}
