import type { Message } from '../common/messages.ts';
import type { MemoryStore, WriteAttempt } from '../memory/types.ts';

/**
 * What the context room keeps beside a conversation, under keys of its own in the same memory store
 * (`<id>#summary`, `<id>#calibration`): the conversation itself is never rewritten, and `history()`
 * still reads every message. Any memory store works, including one an application wrote itself.
 */

/** The latest compaction: the view of the conversation starts at `throughSeq`, after this summary. */
export interface StoredSummary {
  /** Messages before this position are summarized (or dropped, with `truncate`). */
  throughSeq: number;
  /** The summary text; empty when the oldest turns were dropped without one. */
  text: string;
  mode: 'summarize' | 'truncate';
  /** Compactions of this conversation so far. */
  compactions: number;
  /** Messages summarized over all compactions. */
  messages: number;
}

/** Real tokens per estimated unit, from the provider's count of an earlier step. */
export interface Calibration {
  ratio: number;
  /** A prompt limit the provider stated in a "prompt too long" error. */
  providerLimit?: number;
}

const summaryKey = (conversationId: string) => `${conversationId}#summary`;
const calibrationKey = (conversationId: string) => `${conversationId}#calibration`;

/** The latest summary (position 0; every compaction's summary is also kept at its own number). */
export async function readSummary(
  store: MemoryStore,
  conversationId: string,
): Promise<StoredSummary | undefined> {
  return readRecord<StoredSummary>(store, summaryKey(conversationId));
}

/**
 * Stores `summary` under its own number, as `attempt` of the compaction activity, and as the latest.
 * A compaction attempt that froze and woke late stores nothing over what came after it: under its
 * number the store refuses a write from an older attempt of the same activity (see
 * {@link WriteAttempt}); as the latest, every compaction writes as one writer whose attempts count
 * compactions first, so an earlier compaction's summary never replaces a later one's.
 */
export async function writeSummary(
  store: MemoryStore,
  conversationId: string,
  summary: StoredSummary,
  attempt: WriteAttempt,
): Promise<void> {
  const message = record(summary);
  await store.append(summaryKey(conversationId), summary.compactions, [message], attempt);
  await store.append(summaryKey(conversationId), 0, [message], {
    writer: LATEST_SUMMARY_WRITER,
    attempt:
      summary.compactions * ATTEMPTS_PER_COMPACTION + Math.min(attempt.attempt, ATTEMPTS_PER_COMPACTION - 1),
  });
}

/** The one writer of the latest summary, across activities and runs of a conversation. */
const LATEST_SUMMARY_WRITER = 'latest-summary';
/** Attempts of one compaction counted apart from the next one's (later attempts count as the 999th; fits 32-bit columns). */
const ATTEMPTS_PER_COMPACTION = 1_000;

export async function readCalibration(
  store: MemoryStore,
  conversationId: string,
): Promise<Calibration | undefined> {
  return readRecord<Calibration>(store, calibrationKey(conversationId));
}

/**
 * Stores the calibration learned by the model step at `step.seq`, as `step.attempt` of its activity.
 * Like the latest summary, every step writes as one writer whose attempts count steps first (the
 * step's position), so a step's attempt that froze and woke late never replaces what a later attempt
 * or a later step stored. Without `step` (an application's own call) the write is unguarded.
 */
export async function writeCalibration(
  store: MemoryStore,
  conversationId: string,
  calibration: Calibration,
  step?: { seq: number; attempt: WriteAttempt },
): Promise<void> {
  await store.append(
    calibrationKey(conversationId),
    0,
    [record(calibration)],
    step && {
      writer: LATEST_CALIBRATION_WRITER,
      attempt:
        step.seq * ATTEMPTS_PER_COMPACTION + Math.min(step.attempt.attempt, ATTEMPTS_PER_COMPACTION - 1),
    },
  );
}

/** The one writer of a conversation's calibration, across model steps, activities and runs. */
const LATEST_CALIBRATION_WRITER = 'latest-calibration';

function record(value: object): Message {
  return { role: 'system', content: JSON.stringify(value) };
}

async function readRecord<T>(store: MemoryStore, key: string): Promise<T | undefined> {
  const [message] = await store.read(key, { before: 1 });
  return message ? (JSON.parse(message.content) as T) : undefined;
}
