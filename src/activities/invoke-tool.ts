import type { Context } from '@temporalio/activity';
import { z } from 'zod';
import type { InvokeToolInput, ToolOutcome } from '../common/index.ts';
import { authorizationNeedOf } from '../authorization/need.ts';
import { requestAuthorization } from '../authorization/request.ts';
import { capText } from '../common/text.ts';
import { toolResultMessage } from '../common/messages.ts';
import { ToolInputError } from '../errors.ts';
import { mcpToolFor } from '../mcp/run-tools.ts';
import { longRateLimit } from '../rate-limits/retry-after.ts';
import { SecretSet } from '../redaction.ts';
import { LOAD_SKILL_TOOL, READ_SKILL_FILE_TOOL } from '../skills/listing.ts';
import type { ToolContext } from '../tools/connector-base.ts';
import { toolMemoryResource } from '../agent-memory/turn-memory.ts';
import { runWithRefreshOnRejection } from '../tools/refresh-on-rejection.ts';
import { asToolAnswer, cancelledOr, toApplicationFailure } from './failures.ts';
import type { RegisteredAgent } from './registered-agent.ts';
import { lookupModel } from './registry.ts';
import { writeAttemptOf } from './write-attempt.ts';
import { guardrailContext } from '../guardrails/check-activity.ts';
import { withdrawnText } from '../guardrails/recorded.ts';
import { checkToolCall, type ToolChecked } from '../guardrails/tool-checks.ts';

/**
 * What a call needs of its activity: a tool call's own, or the model step's that carries it
 * (src/fast-tools/carried-calls.ts), with the call's own budget in its signal.
 */
export type ToolCallContext = Pick<Context, 'info' | 'cancellationSignal' | 'heartbeat' | 'log'>;

const PREVIEW_CHARS = 2_000;
const MAX_EVENT_METADATA_CHARS = 4_000;
/** Heartbeats carry cancellation to the activity; the worker throttles what reaches the server. */
const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Runs one tool call inside the activity: looks the tool up, validates the arguments with its zod
 * schema (a mismatch goes back to the model as {@link ToolInputError}), runs it with a context that
 * reads credentials here and nowhere else, caps and redacts the output, and stores it as the
 * call's result in the memory store. Heartbeats while the tool runs. Errors leave redacted, as typed `ApplicationFailure`s.
 */
export async function invokeTool(
  agent: RegisteredAgent,
  input: InvokeToolInput,
  context: ToolCallContext,
): Promise<ToolOutcome> {
  const secrets = new SecretSet();
  const { call } = input;
  try {
    const tool =
      agent.tools.get(call.name) ??
      (input.skillTools?.includes(call.name) ? agent.builtinTools.get(call.name) : undefined) ??
      (await mcpToolFor(agent, call.name, { ...input, secrets, signal: context.cancellationSignal }));
    if (!tool) {
      const known = offeredTools(agent, input.skillTools).join(', ') || 'none';
      throw new ToolInputError(`There is no tool named "${call.name}". Available tools: ${known}.`);
    }
    const parsed = tool.parameters.safeParse(call.args ?? {});
    if (!parsed.success) {
      throw new ToolInputError(`Invalid arguments for ${call.name}:\n${z.prettifyError(parsed.error)}`);
    }
    const guard = agent.guardrails?.tools.size
      ? guardrailContext(agent.name, input.tenant, context)
      : undefined;
    const redact = (text: string): string => secrets.redact(text);
    if (guard) {
      const before = await checkToolCall(
        agent.guardrails,
        { phase: 'before', tool: call.name, args: parsed.data },
        guard,
        redact,
        input.guardrails,
      );
      if (before) return await guardedOutcome(agent, input, context, before);
    }
    const toolContext: ToolContext = {
      agent: agent.name,
      workflowId: context.info.workflowExecution?.workflowId ?? '',
      runId: context.info.workflowExecution?.runId ?? '',
      callId: call.id,
      tenant: input.tenant,
      conversationId: input.conversationId,
      ...toolMemoryResource(agent.memory, input, context),
      credentialStore: agent.credentialStore,
      secrets,
      signal: context.cancellationSignal,
      heartbeat: (details) => beatUnlessLocal(context, details),
      askModel: async (prompt) => {
        const model = lookupModel(agent, input.model);
        const answer = await model.generate({
          messages: [{ role: 'user', content: prompt }],
          tools: [],
          signal: context.cancellationSignal,
        });
        return answer.text;
      },
    };
    // One heartbeat while the tool runs: often enough that a worker that dies mid-call is noticed
    // within toolHeartbeatMs, and that a cancellation reaches the call within a second.
    const every = Math.min(HEARTBEAT_EVERY_MS, Math.max(100, agent.timeouts.toolHeartbeatMs / 3));
    const output = await untilCancelled(
      runWithRefreshOnRejection(tool, toolContext, parsed.data),
      context,
      every,
    );
    const redacted = secrets.redact(String(output?.text ?? ''));
    const { text, truncated } = capText(redacted, agent.maxToolOutputChars);
    if (guard) {
      const after = await checkToolCall(
        agent.guardrails,
        { phase: 'after', tool: call.name, args: parsed.data, result: text },
        guard,
        redact,
        input.guardrails,
      );
      if (after) return await guardedOutcome(agent, input, context, after);
    }
    await agent.memoryStore.append(
      input.conversationId,
      input.seq,
      [toolResultMessage(call, text)],
      callWriteAttempt(input, context),
    );
    const loadTools = (output?.loadTools ?? []).filter(
      (name) => agent.tools.has(name) || agent.mcp?.has(name),
    );
    return {
      preview: capText(text, PREVIEW_CHARS).text,
      chars: redacted.length,
      truncated,
      ...eventMetadata(output?.metadata, secrets),
      ...(loadTools.length ? { loadTools } : {}),
      ...(call.name === LOAD_SKILL_TOOL && output?.loadedSkill ? { loadedSkill: output.loadedSkill } : {}),
    };
  } catch (error) {
    const asked = await authorizationOutcome(agent, input, error, secrets, context);
    if (asked) return asked;
    const rateLimited = longRateLimit(error, agent.timeouts.longRetryAfterMs ?? Infinity, secrets);
    if (rateLimited && !context.cancellationSignal.aborted) {
      context.log.info(
        `Tool ${call.name} was rate-limited for ${Math.round(rateLimited.retryAfterMs / 1000)} s: the run waits on a timer, then calls again`,
      );
      return { preview: '', chars: 0, truncated: false, rateLimited };
    }
    throw cancelledOr(error, () => asToolAnswer(toApplicationFailure(error, secrets), call.name));
  }
}

/**
 * A call a tool guardrail stopped: the model sees the check's message (a reject) or that the result
 * was withdrawn (a trip, which ends the run) as the call's result.
 */
async function guardedOutcome(
  agent: RegisteredAgent,
  input: InvokeToolInput,
  context: ToolCallContext,
  checked: NonNullable<ToolChecked>,
): Promise<ToolOutcome> {
  const text = 'trip' in checked ? withdrawnText(checked.trip) : checked.reject;
  await agent.memoryStore.append(
    input.conversationId,
    input.seq,
    [toolResultMessage(input.call, text)],
    callWriteAttempt(input, context),
  );
  const outcome = { preview: capText(text, PREVIEW_CHARS).text, chars: text.length, truncated: false };
  if ('trip' in checked) return { ...outcome, guardrail: checked.trip };
  return { ...outcome, rejected: { check: checked.check, phase: checked.phase } };
}

/**
 * A call that needs the user's grant, in an agent with `authorization` and a helper for the key:
 * not a failure but an outcome that asks (nothing is stored; the workflow waits and calls again).
 */
async function authorizationOutcome(
  agent: RegisteredAgent,
  input: InvokeToolInput,
  error: unknown,
  secrets: SecretSet,
  context: ToolCallContext,
): Promise<ToolOutcome | undefined> {
  const need = authorizationNeedOf(error);
  if (!need || !agent.authorization || context.cancellationSignal.aborted) return undefined;
  const message = secrets.redact(error instanceof Error ? error.message : String(error));
  const request = await requestAuthorization(agent.authorization, need, {
    tenant: input.tenant,
    workflowId: context.info.workflowExecution?.workflowId ?? '',
    credentialStore: agent.credentialStore,
    message: capText(message, PREVIEW_CHARS).text,
  });
  return request ? { preview: '', chars: 0, truncated: false, authorization: request } : undefined;
}

/**
 * Runs the tool while heartbeating every `every` ms (so that a cancellation reaches this activity
 * even when the tool itself never heartbeats) and ends as soon as the activity is cancelled: the
 * signal fires, the tool is told through it, and its late result is never stored.
 */
async function untilCancelled<T>(work: Promise<T>, context: ToolCallContext, every: number): Promise<T> {
  const signal = context.cancellationSignal;
  const beat = setInterval(() => beatUnlessLocal(context), every);
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearInterval(beat);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    work.catch(() => undefined); // a tool that ignored the signal may still fail later
  }
}

/**
 * A local activity (a fast tool) has no heartbeat: its budget is short and its cancellation comes
 * from the worker itself. A normal activity's heartbeat tells the server the call is alive.
 */
function beatUnlessLocal(context: ToolCallContext, details?: unknown): void {
  if (!context.info.isLocal) context.heartbeat(details);
}

/**
 * Whose write the call's result is: keyed by the call's position, not by the activity, so the local
 * attempts of a fast tool and the normal activity it falls back to are one writer, the fallback's
 * attempts counting on after the local ones (a late local write cannot replace the fallback's).
 */
export function callWriteAttempt(
  input: InvokeToolInput,
  context: ToolCallContext,
): ReturnType<typeof writeAttemptOf> {
  const { writer } = writeAttemptOf(context);
  const run = writer.slice(0, writer.lastIndexOf('/'));
  return { writer: `${run}/call-${input.seq}`, attempt: (input.attemptBase ?? 0) + context.info.attempt };
}

/** The tool's metadata, redacted, when it is small enough to ride along with the event. */
function eventMetadata(metadata: unknown, secrets: SecretSet): { metadata?: Record<string, unknown> } {
  if (!metadata || typeof metadata !== 'object') return {};
  const json = secrets.redact(JSON.stringify(metadata));
  return json.length <= MAX_EVENT_METADATA_CHARS
    ? { metadata: JSON.parse(json) as Record<string, unknown> }
    : {};
}

/**
 * The tools to name when the model calls one that does not exist: the agent's own and the run's
 * skill tools. The skill-loading tools are left out: a run offers them only with a skill listing,
 * which names them itself.
 */
function offeredTools(agent: RegisteredAgent, skillTools: readonly string[] = []): string[] {
  const own = [...agent.tools.keys()].filter(
    (name) => name !== LOAD_SKILL_TOOL && name !== READ_SKILL_FILE_TOOL,
  );
  return [...new Set([...own, ...skillTools])];
}
