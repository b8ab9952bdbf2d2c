/**
 * What the end of a run or chat turn records in the ledger (the `recordRun` activity's input):
 * workflow-safe data only, no store.
 */
export interface RecordRunInput {
  agent: string;
  tenant?: string;
  model: string;
  conversationId: string;
  /** Where the turn's messages start: with the workflow's ids, the key of its ledger line. */
  startSeq: number;
  /** Workflow time when the turn started and ended (ms). */
  startedAt: number;
  endedAt: number;
  /** Whether this turn was started from outside (counts as a run) rather than as a sub-run or a later phase. */
  counted: boolean;
  subRuns: number;
  /** The turn's own tool calls, by tool. */
  toolCalls: Record<string, number>;
  /** Free the run's concurrency slot too (the last turn of a run). */
  release: boolean;
}

/** The key of a run's (or turn's) ledger line. */
export function runKey(workflowId: string, runId: string, conversationId: string, startSeq: number): string {
  return `${workflowId}/${runId}/run/${conversationId}/${startSeq}`;
}

/** The key of a model step's ledger line. */
export function stepKey(workflowId: string, runId: string, conversationId: string, seq: number): string {
  return `${workflowId}/${runId}/step/${conversationId}/${seq}`;
}

/**
 * What embedding tokens were spent on: a turn written to long-term memory (`remember`), what was
 * recalled into its prompt (`recall`), observations of turns (`observe`), or a `recall_memory` tool
 * call's query (`recall_memory`).
 */
export type EmbeddingUse = 'remember' | 'recall' | 'observe' | 'recall_memory';

/**
 * The key of the ledger line of embedding tokens: `at` is where the turn (or the observed turns)
 * starts in the conversation, or the id of the `recall_memory` call.
 */
export function embeddingKey(
  workflowId: string,
  runId: string,
  conversationId: string,
  use: EmbeddingUse,
  at: number | string,
): string {
  return `${workflowId}/${runId}/embed/${conversationId}/${use}/${at}`;
}

/** The key of the ledger line of the model call that condensed turns `[fromSeq, toSeq)` into observations. */
export function observerKey(
  workflowId: string,
  runId: string,
  conversationId: string,
  fromSeq: number,
  toSeq: number,
): string {
  return `${workflowId}/${runId}/observe/${conversationId}/${fromSeq}-${toSeq}`;
}
