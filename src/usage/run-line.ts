import type { RunLineSoFar } from '../common/model-step.ts';
import type { RecordRunInput } from './run-input.ts';

/** What a turn knows of its ledger line when it starts. */
export type RunLineStart = Pick<RecordRunInput, 'startSeq' | 'startedAt' | 'counted' | 'release'>;

/** What the turn's loop has counted so far, and the agent it started with when the conversation was handed off. */
export interface RunLineCounts {
  handedOffFrom?: string;
  subRuns: number;
  toolCalls: Record<string, number>;
}

/**
 * The line so far, as short as it can be (each model step carries it): what is left out is the
 * default (`startSeq` 0, not counted, not released, no sub-runs, no tool calls).
 */
export function runLineSoFar(start: RunLineStart, counts: RunLineCounts): RunLineSoFar {
  return {
    startedAt: start.startedAt,
    ...(start.startSeq ? { startSeq: start.startSeq } : {}),
    ...(start.counted ? { counted: true } : {}),
    ...(start.release ? { release: true } : {}),
    ...(counts.handedOffFrom !== undefined ? { agent: counts.handedOffFrom } : {}),
    ...(counts.subRuns ? { subRuns: counts.subRuns } : {}),
    ...(Object.keys(counts.toolCalls).length ? { toolCalls: { ...counts.toolCalls } } : {}),
  };
}

/**
 * The whole line, ended at `endedAt`: the agent, tenant, model and conversation of whoever writes it
 * (the answering step, or the turn at its end) complete it; its own `agent` wins (a handed-off turn).
 */
export function completeRunLine(
  line: RunLineSoFar,
  writer: Pick<RecordRunInput, 'agent' | 'tenant' | 'model' | 'conversationId'>,
  endedAt: number,
): RecordRunInput {
  return {
    agent: line.agent ?? writer.agent,
    ...(writer.tenant !== undefined ? { tenant: writer.tenant } : {}),
    model: writer.model,
    conversationId: writer.conversationId,
    startSeq: line.startSeq ?? 0,
    startedAt: line.startedAt,
    endedAt,
    counted: line.counted ?? false,
    subRuns: line.subRuns ?? 0,
    toolCalls: line.toolCalls ?? {},
    release: line.release ?? false,
  };
}
