import type { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { quotaMessage, type QuotaExceededDetails } from '../errors.ts';
import type { Usage } from '../common/messages.ts';
import { writeAttemptOf } from '../activities/write-attempt.ts';
import { hasLimits, limitsFor, startRefusal, tokenRefusal, type Quotas } from './quotas.ts';
import { startOfUtcDay } from './ledger-keys.ts';
import { QUOTA_FAILURE_TYPE } from './failure-type.ts';
import {
  embeddingKey,
  observerKey,
  runKey,
  stepKey,
  type EmbeddingUse,
  type RecordRunInput,
} from './run-input.ts';
import type { WriteAttempt } from '../memory/types.ts';
import type { AdmissionScopes, UsageEntry, UsageStore } from './types.ts';

/** What an agent on this worker knows of the ledger: where it is and the quotas in force. */
export interface AgentUsage {
  store: UsageStore;
  /** The worker's quotas (the whole fleet). */
  fleet?: Quotas;
  /** The agent's own quotas (they count the tenant's runs of this agent). */
  own?: Quotas;
}

/** A run's identity in the activity's context. */
function runIds(context: Pick<Context, 'info'>): { workflowId: string; runId: string } {
  const execution = context.info.workflowExecution;
  return { workflowId: execution?.workflowId ?? '', runId: execution?.runId ?? '' };
}

/**
 * Who writes a ledger line of spent tokens: the run it counts for and, from an activity of its own,
 * the attempt that writes it (a line written without one is replaced by any later write).
 */
export interface SpendWriter {
  workflowId: string;
  runId: string;
  attempt?: WriteAttempt;
}

/** The activity running now as the writer of a ledger line. */
export function spendWriterOf(context: Pick<Context, 'info'>): SpendWriter {
  return { ...runIds(context), attempt: writeAttemptOf(context) };
}

/** A ledger line: zeros where `fields` say nothing, the tenant `''` when there is none. */
export function usageEntry(
  fields: Partial<UsageEntry> & Pick<UsageEntry, 'key' | 'at' | 'agent' | 'model' | 'workflow_id'>,
  tenant?: string,
): UsageEntry {
  return {
    tenant: tenant ?? '',
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    cache_write_5m_tokens: 0,
    cache_write_1h_tokens: 0,
    reasoning_tokens: 0,
    total_tokens: 0,
    runs: 0,
    sub_runs: 0,
    wall_ms: 0,
    tool_calls: {},
    ...fields,
  };
}

function refused(details: QuotaExceededDetails): ApplicationFailure {
  return ApplicationFailure.create({
    message: quotaMessage(details),
    type: QUOTA_FAILURE_TYPE,
    nonRetryable: true,
    // Expected, not a fault of the worker: logged at DEBUG, not as a failed activity.
    category: ApplicationFailureCategory.BENIGN,
    details: [details],
  });
}

/**
 * The start of a run or chat turn: checks the start quotas against the ledger and, when they
 * allow it, takes a concurrency slot and records the start line, atomically. Slots of runs that
 * are no longer running (terminated, or on a worker that crashed) are freed and the check made once
 * more. Throws a non-retryable `QuotaExceededError` failure when refused.
 */
export async function admitRun(
  usage: AgentUsage,
  input: { agent: string; tenant?: string; model: string; conversationId: string; startSeq: number },
  context: Context,
): Promise<void> {
  const { workflowId, runId } = runIds(context);
  const tenant = input.tenant ?? '';
  const now = Date.now();
  const start = usageEntry(
    {
      key: runKey(workflowId, runId, input.conversationId, input.startSeq),
      at: now,
      agent: input.agent,
      model: input.model,
      workflow_id: workflowId,
      runs: 1,
    },
    input.tenant,
  );
  const fleet = limitsFor(tenant, usage.fleet);
  const own = limitsFor(tenant, usage.own);
  if (!hasLimits(fleet) && !hasLimits(own)) return usage.store.record(start);
  const request = { tenant, agent: input.agent, workflowId, start, now };
  // The fleet's quotas count all of the tenant's runs; the agent's own, its runs of this agent.
  const decide = (counts: AdmissionScopes) => {
    const at = Date.now();
    const fleetRefusal = startRefusal(tenant, fleet, counts.tenant, at);
    if (fleetRefusal) return { details: fleetRefusal, running: counts.tenant.running };
    const ownRefusal = startRefusal(tenant, own, counts.agent, at);
    if (ownRefusal) return { details: { ...ownRefusal, agent: input.agent }, running: counts.agent.running };
    return undefined;
  };
  let refusal = await usage.store.admit(request, decide);
  if (refusal?.details.quota === 'maxConcurrentRuns') {
    const freed = await freeDeadSlots(usage.store, refusal.running, context);
    if (freed) refusal = await usage.store.admit(request, decide);
  }
  if (refusal) throw refused(refusal.details);
}

/** Frees the slots of runs that no longer run; answers whether it freed any. */
async function freeDeadSlots(store: UsageStore, holders: string[], context: Context): Promise<boolean> {
  let freed = false;
  for (const workflowId of holders) {
    const running = await context.client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        (description) => description.status.name === 'RUNNING',
        (error: unknown) => ((error as { name?: string }).name === 'WorkflowNotFoundError' ? false : true),
      );
    if (!running) {
      await store.release(workflowId);
      freed = true;
    }
  }
  return freed;
}

/** Before a model step: a tenant whose daily tokens are spent gets a non-retryable quota failure (the run stops with `quota`). */
export async function checkTokenQuota(
  usage: AgentUsage,
  input: { agent: string; tenant?: string },
): Promise<void> {
  const tenant = input.tenant ?? '';
  const now = Date.now();
  const today = new Date(startOfUtcDay(now));
  for (const [quotas, agent] of [
    [usage.fleet, undefined],
    [usage.own, input.agent],
  ] as const) {
    const limits = limitsFor(tenant, quotas);
    if (limits.maxTokensPerDay === undefined) continue;
    const details = tokenRefusal(tenant, limits, await usage.store.tokensSince(tenant, today, agent), now);
    if (details) throw refused(agent === undefined ? details : { ...details, agent });
  }
}

/** A model step's tokens, at the step's key (a retry writes the same line again). */
export async function recordStep(
  usage: AgentUsage,
  input: { agent: string; tenant?: string; model: string; conversationId: string; seq: number },
  tokens: Usage | undefined,
  context: Context,
): Promise<void> {
  if (!tokens) return;
  await recordSpend(
    usage,
    input,
    (workflowId, runId) => stepKey(workflowId, runId, input.conversationId, input.seq),
    tokenFields(tokens),
    spendWriterOf(context),
  );
}

/**
 * One line of tokens a model or an embedder spent for a run, at the key `keyOf` makes of the run's
 * ids, so a retried activity writes the same line again.
 */
async function recordSpend(
  usage: AgentUsage,
  by: { agent: string; tenant?: string; model: string },
  keyOf: (workflowId: string, runId: string) => string,
  fields: Partial<UsageEntry>,
  writer: SpendWriter,
): Promise<void> {
  const { workflowId, runId, attempt } = writer;
  await usage.store.record(
    usageEntry(
      {
        key: keyOf(workflowId, runId),
        at: Date.now(),
        agent: by.agent,
        model: by.model,
        workflow_id: workflowId,
        ...fields,
      },
      by.tenant,
    ),
    attempt,
  );
}

/** A model call's tokens as ledger fields. */
function tokenFields(tokens: Usage): Partial<UsageEntry> {
  return {
    input_tokens: tokens.input_tokens,
    output_tokens: tokens.output_tokens,
    cached_input_tokens: tokens.cached_input_tokens ?? 0,
    cache_write_5m_tokens: tokens.cache_write_5m_tokens ?? 0,
    cache_write_1h_tokens: tokens.cache_write_1h_tokens ?? 0,
    reasoning_tokens: tokens.reasoning_tokens ?? 0,
    total_tokens: tokens.total_tokens,
  };
}

/** The model call that condensed turns `[fromSeq, toSeq)` of a chat session into observations. */
export async function recordObserver(
  usage: AgentUsage,
  input: {
    agent: string;
    tenant?: string;
    model: string;
    conversationId: string;
    fromSeq: number;
    toSeq: number;
  },
  tokens: Usage | undefined,
  context: Context,
): Promise<void> {
  if (!tokens) return;
  await recordSpend(
    usage,
    input,
    (workflowId, runId) => observerKey(workflowId, runId, input.conversationId, input.fromSeq, input.toSeq),
    tokenFields(tokens),
    spendWriterOf(context),
  );
}

/** The end of a run or chat turn: its line (tool calls by tool, sub-runs, wall time), and its slot freed when it was the last turn. */
export async function recordRun(usage: AgentUsage, input: RecordRunInput, context: Context): Promise<void> {
  const { workflowId, runId } = runIds(context);
  await usage.store.record(
    usageEntry(
      {
        key: runKey(workflowId, runId, input.conversationId, input.startSeq),
        at: input.startedAt,
        agent: input.agent,
        model: input.model,
        workflow_id: workflowId,
        runs: input.counted ? 1 : 0,
        sub_runs: input.subRuns,
        wall_ms: Math.max(0, input.endedAt - input.startedAt),
        tool_calls: input.toolCalls,
      },
      input.tenant,
    ),
    writeAttemptOf(context),
  );
  if (input.release) await usage.store.release(workflowId);
}

/**
 * The tokens an embedding model spent on long-term memory: a turn's write (`remember`), the recall
 * into its prompt (`recall`), observations (`observe`), each at the position `at` where they start,
 * or a `recall_memory` tool call's query (`at`: the call's id). Recorded as input tokens of the
 * embedder's id (`openai:text-embedding-3-small`), so `pricing` prices them as any model's. Nothing
 * is written when none were spent; a retry writes the same line.
 */
export async function recordEmbedding(
  usage: AgentUsage,
  input: {
    agent: string;
    tenant?: string;
    embedder: string;
    conversationId: string;
    use: EmbeddingUse;
    at: number | string;
    tokens: number;
  },
  writer: SpendWriter,
): Promise<void> {
  if (input.tokens <= 0) return;
  await recordSpend(
    usage,
    { ...input, model: input.embedder },
    (workflowId, runId) => embeddingKey(workflowId, runId, input.conversationId, input.use, input.at),
    { input_tokens: input.tokens, total_tokens: input.tokens },
    writer,
  );
}
