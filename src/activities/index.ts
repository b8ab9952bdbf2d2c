import { Context } from '@temporalio/activity';
import type {
  AppendMessagesInput,
  CallModelInput,
  InvokeToolInput,
  ModelStep,
  OpenedRun,
  OpenRunInput,
  ResolvedRun,
  ResolveRunInput,
  ToolOutcome,
} from '../common/index.ts';
import type { ToolCall } from '../common/messages.ts';
import type { PollResult } from '../common/poller.ts';
import type { CompactContextInput, CompactionResult } from '../context/types.ts';
import { authorizationReady } from '../authorization/ready.ts';
import type { AuthorizationReadyInput } from '../common/authorization.ts';
import { needsApproval } from './approval.ts';
import { callModel } from './call-model.ts';
import { compactContext } from './compact-context.ts';
import { cancelledOr, toApplicationFailure } from './failures.ts';
import { longRateLimitFailure } from '../rate-limits/retry-after.ts';
import { invokeTool } from './invoke-tool.ts';
import { pollSource, type PollSourceInput } from './poll-source.ts';
import type { AgentRegistry } from './registered-agent.ts';
import { lookupAgent, lookupModel } from './registry.ts';
import { openRun } from './open-run.ts';
import { resolveRun } from './resolve-run.ts';
import { writeAttemptOf } from './write-attempt.ts';
import { recordEmbedding, recordObserver, recordRun, spendWriterOf } from '../usage/recorder.ts';
import { awaitA2aTaskChange, sendA2aPushNotification } from '../a2a/push-activities.ts';
import type { A2aPushInput, A2aTaskStateSeen } from '../common/a2a-push.ts';
import type { RecordRunInput } from '../usage/run-input.ts';
import { checkGuardrail } from '../guardrails/check-activity.ts';
import { guardrailsOwner } from '../guardrails/registered.ts';
import type { RegisteredAgent } from './registered-agent.ts';
import type { CheckGuardrailInput, RecordedVerdict } from '../guardrails/recorded.ts';
import { rememberTurn, type RememberTurnInput } from '../agent-memory/remember-turn.ts';
import { observeTurns, type ObserveTurnsInput, type ObserverSpend } from '../agent-memory/observe-turns.ts';
import { keepingRecalled } from '../agent-memory/turn-memory.ts';

/**
 * The activities of the agent workflows, closed over the worker's agents (their model adapters,
 * tools and stores). Workflows type their proxies against this factory's return type.
 */
export function createActivities(registry: AgentRegistry) {
  return {
    /** Decides the run's model, skills, tools and limits, and stores its opening messages. */
    resolveRun: (input: ResolveRunInput): Promise<ResolvedRun> =>
      atBoundary(() =>
        resolveRun(
          lookupAgent(registry, input.agent),
          input,
          Context.current(),
          guardrailsOwner(registry, input.agent, input.parentAgent),
        ),
      ),

    /** A turn's opening step: `resolveRun`, then the first model step, in one activity. */
    openRun: (input: OpenRunInput): Promise<OpenedRun> =>
      atBoundary(() =>
        openRun(
          lookupAgent(registry, input.resolve.agent),
          input,
          Context.current(),
          guardrailsOwner(registry, input.resolve.agent, input.resolve.parentAgent),
        ),
      ),

    callModel: (input: CallModelInput): Promise<ModelStep> =>
      atBoundary(async () => {
        const agent = withGuardrailsOf(registry, lookupAgent(registry, input.agent), input.guardrailsOf);
        try {
          return await callModel(agent, input, Context.current());
        } catch (error) {
          // A long Retry-After is waited out by the workflow, on a timer (src/rate-limits/workflow-wait.ts);
          // a step carrying fast calls is retried here, since its calls ran with its first attempt.
          if (input.carried) throw error;
          throw longRateLimitFailure(error, agent.timeouts.longRetryAfterMs) ?? error;
        }
      }),

    /** Summarizes (or drops) the oldest turns of a conversation that outgrew the context budget. */
    compactContext: (input: CompactContextInput): Promise<CompactionResult> =>
      atBoundary(() => compactContext(lookupAgent(registry, input.agent), input, Context.current())),

    invokeTool: (input: InvokeToolInput): Promise<ToolOutcome> =>
      atBoundary(() =>
        invokeTool(
          withGuardrailsOf(registry, lookupAgent(registry, input.agent), input.guardrailsOf),
          input,
          Context.current(),
        ),
      ),

    /** Asks a tool's `needsApproval` function whether this call must wait for a person. */
    needsApproval: (input: { agent: string; call: ToolCall; tenant?: string }): Promise<boolean> =>
      atBoundary(() => {
        const { workflowExecution } = Context.current().info;
        return needsApproval(lookupAgent(registry, input.agent), {
          ...input,
          workflowId: workflowExecution?.workflowId ?? '',
          runId: workflowExecution?.runId ?? '',
        });
      }),

    /** A waiting call's fallback: is the grant in the store now (stored some other way than a wake-up)? */
    authorizationReady: (input: AuthorizationReadyInput): Promise<boolean> =>
      atBoundary(() => authorizationReady(lookupAgent(registry, input.agent).credentialStore, input)),

    /** Where a session that is (re)started stands: how many turns and stored messages it has. */
    loadSession: (input: {
      agent: string;
      sessionId: string;
    }): Promise<{ turns: number; messageCount: number; agent?: string }> =>
      atBoundary(async () => {
        const messages = await lookupAgent(registry, input.agent).memoryStore.read(input.sessionId);
        // A session that was handed off goes on with the agent that answered last.
        const holder = messages.findLast((m) => m.role === 'assistant' && m.agent !== undefined);
        const agent = holder?.role === 'assistant' && holder.agent !== input.agent ? holder.agent : undefined;
        return {
          turns: messages.filter((m) => m.role === 'user').length,
          messageCount: messages.length,
          ...(agent ? { agent } : {}),
        };
      }),

    /** One poll of a poller's source (Gmail, Linear): the new items and where the next poll starts. */
    pollSource: (input: PollSourceInput): Promise<PollResult> =>
      atBoundary(() => pollSource(lookupAgent(registry, input.agent), input, Context.current())),

    /** The end of a run or chat turn in the usage ledger (and its concurrency slot freed when `release`). */
    recordRun: (input: RecordRunInput): Promise<void> =>
      atBoundary(async () => {
        const { usage } = lookupAgent(registry, input.agent);
        if (usage) await recordRun(usage, input, Context.current());
      }),

    /** Frees the concurrency slot of a run that failed or was cancelled. */
    releaseRun: (input: { agent: string }): Promise<void> =>
      atBoundary(async () => {
        const { usage } = lookupAgent(registry, input.agent);
        const workflowId = Context.current().info.workflowExecution?.workflowId;
        if (usage && workflowId) await usage.store.release(workflowId);
      }),

    /** An A2A task's notifier waits for the task to change state (docs/a2a.md). */
    awaitA2aTaskChange: (input: { taskId: string; after?: string }): Promise<A2aTaskStateSeen> =>
      atBoundary(() => awaitA2aTaskChange(input, Context.current())),

    /** Sends an A2A push notification of the task's state now (its secrets read from the agent's store). */
    sendA2aPushNotification: (input: A2aPushInput & { after?: string }): Promise<A2aTaskStateSeen> =>
      atBoundary(() =>
        sendA2aPushNotification(input, Context.current(), lookupAgent(registry, input.agent).credentialStore),
      ),

    /** One input or output guardrail of a run (docs/guardrails.md): its verdict is recorded. */
    checkGuardrail: (input: CheckGuardrailInput): Promise<RecordedVerdict> =>
      atBoundary(() =>
        checkGuardrail(input.agent, lookupAgent(registry, input.agent).guardrails, input, Context.current()),
      ),

    /** Remembers an answered turn in the agent's long-term memory (docs/memory.md); answers the ids written. */
    rememberTurn: (input: RememberTurnInput): Promise<string[]> =>
      atBoundary(async () => {
        const agent = lookupAgent(registry, input.agent);
        if (!agent.memory) return [];
        const embedding = { tokens: 0 };
        const ids = await rememberTurn(agent.memory, agent.memoryStore, input, embedding);
        const embedder = agent.memory.memory.embedderId;
        if (agent.usage && embedder)
          await recordEmbedding(
            agent.usage,
            { ...input, embedder, use: 'remember', at: input.fromSeq, ...embedding },
            spendWriterOf(Context.current()),
          );
        return ids;
      }),

    /** Condenses turns of a chat session into observations in long-term memory; answers the ids written. */
    observeTurns: (input: ObserveTurnsInput): Promise<string[]> =>
      atBoundary(async () => {
        const agent = lookupAgent(registry, input.agent);
        if (!agent.memory) return [];
        const context = Context.current();
        const spend: ObserverSpend = { embedding: { tokens: 0 } };
        const ids = await observeTurns(
          agent.memory,
          agent.memoryStore,
          lookupModel(agent, undefined),
          input,
          context.cancellationSignal,
          spend,
        );
        if (agent.usage) {
          await recordObserver(agent.usage, { ...input, model: agent.defaultModel }, spend.model, context);
          const embedder = agent.memory.memory.embedderId;
          if (embedder)
            await recordEmbedding(
              agent.usage,
              { ...input, embedder, use: 'observe', at: input.fromSeq, ...spend.embedding },
              spendWriterOf(context),
            );
        }
        return ids;
      }),

    /** Stores messages the workflow decided on (a failed tool's error, refused calls). */
    appendMessages: (input: AppendMessagesInput): Promise<void> =>
      atBoundary(async () => {
        const { memoryStore } = lookupAgent(registry, input.agent);
        const messages = input.keepRecalled ? await keepingRecalled(memoryStore, input) : input.messages;
        await memoryStore.append(
          input.conversationId,
          input.seq,
          messages,
          writeAttemptOf(Context.current()),
        );
      }),
  };
}

export type AgentActivities = ReturnType<typeof createActivities>;

async function atBoundary<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw cancelledOr(error, () => toApplicationFailure(error));
  }
}

/** The agent with the guardrails of `owner` (a sub-agent run without its own runs its parent's). */
function withGuardrailsOf(
  registry: AgentRegistry,
  agent: RegisteredAgent,
  owner: string | undefined,
): RegisteredAgent {
  if (owner === undefined || owner === agent.name) return agent;
  const guardrails = registry.get(owner)?.guardrails;
  return guardrails ? { ...agent, guardrails } : agent;
}
