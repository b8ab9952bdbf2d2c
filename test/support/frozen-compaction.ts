import type { Message } from '../../src/common/messages.ts';
import { compactConversation } from '../../src/context/compact.ts';
import { contextSettings } from '../../src/context/options.ts';
import { readSummary, writeSummary } from '../../src/context/store.ts';
import type { MemoryStore, WriteAttempt } from '../../src/memory/types.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';

/** Turns `from`..`to` of a conversation: a question and a long answer each. */
function turns(from: number, to: number): Message[] {
  const messages: Message[] = [];
  for (let t = from; t <= to; t++) {
    messages.push({ role: 'user', content: `question ${t}` });
    messages.push({ role: 'assistant', content: `answer ${t} `.padEnd(1_200, '.') });
  }
  return messages;
}

/** One compaction of the conversation as `attempt` of a compaction activity, the model answering `summary`. */
async function compact(
  store: MemoryStore,
  conversationId: string,
  attempt: WriteAttempt,
  summary: () => ScriptedStep | Promise<ScriptedStep>,
): Promise<void> {
  const model = new ScriptedModel([summary]);
  const { length } = await store.read(conversationId);
  await compactConversation({
    store,
    model,
    settings: contextSettings({ maxInputTokens: 4_000, keepRecentTurns: 1 }, model),
    conversationId,
    seq: length,
    tools: [],
    force: false,
    attempt,
  });
  model.assertAllStepsUsed();
}

/**
 * Compacts a new conversation `conversationId` in `store` as a compaction attempt does that froze in
 * its model call, was replaced by a retry that stored its summary, and then woke and stored its own;
 * then, after two more turns, once more as the next compaction (another activity). Answers the text
 * of the latest summary after each.
 */
export async function compactWithFrozenAttempt(
  store: MemoryStore,
  conversationId: string,
): Promise<Record<'afterWake' | 'afterNext' | 'afterLateEarlier', string | undefined>> {
  await store.append(conversationId, 0, [{ role: 'system', content: 'You are terse.' }, ...turns(1, 6)]);
  const writer = 'run-1/7';
  let frozen!: () => void;
  const asleep = new Promise<void>((resolve) => (frozen = resolve));
  let wake!: () => void;
  const woken = new Promise<void>((resolve) => (wake = resolve));
  const late = compact(store, conversationId, { writer, attempt: 1 }, async () => {
    frozen();
    await woken;
    return { text: 'summary of the frozen attempt' };
  });
  await asleep;
  await compact(store, conversationId, { writer, attempt: 2 }, () => ({ text: 'summary of the retry' }));
  wake();
  await late;
  const afterWake = (await readSummary(store, conversationId))?.text;

  const { length } = await store.read(conversationId);
  await store.append(conversationId, length, turns(7, 8));
  await compact(store, conversationId, { writer: 'run-1/12', attempt: 1 }, () => ({
    text: 'summary of the next compaction',
  }));
  const afterNext = (await readSummary(store, conversationId))?.text;

  // The first compaction's activity once more: an attempt of it that froze and only now stores.
  await writeSummary(
    store,
    conversationId,
    {
      throughSeq: 3,
      text: 'summary of an earlier compaction, late',
      mode: 'summarize',
      compactions: 1,
      messages: 2,
    },
    { writer, attempt: 3 },
  );
  return { afterWake, afterNext, afterLateEarlier: (await readSummary(store, conversationId))?.text };
}
