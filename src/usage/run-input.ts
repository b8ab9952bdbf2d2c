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
 * The key of the ledger line of a turn's embedding tokens: `remember` for the turn written to
 * long-term memory, `recall` for what was recalled into its prompt (`seq` where the turn starts),
 * `observe` for observations of turns (`seq` where they start).
 */
export function embeddingKey(
  workflowId: string,
  runId: string,
  conversationId: string,
  use: 'remember' | 'recall' | 'observe',
  seq: number,
): string {
  return `${workflowId}/${runId}/embed/${conversationId}/${use}/${seq}`;
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
