import { SpanKind, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import { failureType } from '../activities/failures.ts';
import {
  withMemoryRecallWrapper,
  withModelStepWrapper,
  type MemoryRecallResult,
  type MemoryRecallWork,
} from '../activities/model-step-wrappers.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';
import type { CallModelInput, InvokeToolInput, ModelStep, ToolOutcome } from '../common/index.ts';
import { contentAttribute, GEN_AI, providerAndModel, TENANT_ATTRIBUTE } from './gen-ai.ts';
import { toGenAiMessages } from './messages.ts';
import type { ActiveTelemetry } from './options.ts';
import type { CheckGuardrailInput, RecordedVerdict } from '../guardrails/recorded.ts';
import type { RememberTurnInput } from '../agent-memory/remember-turn.ts';
import type { ObserveTurnsInput } from '../agent-memory/observe-turns.ts';

/** Attributes of a guardrail's span (input and output checks), or of a tool call a tool check stopped. */
const GUARDRAIL = {
  name: 'toolkit_agent.guardrail.name',
  kind: 'toolkit_agent.guardrail.kind',
  /** `allow`, `tripwire`, `replace`, `retry` or `reject`. */
  verdict: 'toolkit_agent.guardrail.verdict',
  phase: 'toolkit_agent.guardrail.phase',
} as const;

/** How many messages a `remember_memory` span wrote to long-term memory (a `recall_memory` span: recalled). */
const MEMORY_MESSAGES = 'toolkit_agent.memory.messages';
/** How a `recall_memory` span recalled: `auto` (into the turn's prompt). */
const MEMORY_RECALL_MODE = 'toolkit_agent.memory.recall_mode';

/**
 * What the spans read of the worker's agents (the registry is one): their models and where their
 * conversations are. Kept structural so the published types stay clear of the worker's internals.
 */
export type SpanAgents = ReadonlyMap<
  string,
  { models: ReadonlyMap<string, ModelAdapter>; defaultModel: string; memoryStore: MemoryStore }
>;

/**
 * Activity interceptors that trace each model step as `chat <model>` (a `callModel` activity, or
 * the first step a run's opening step takes), each tool call as `execute_tool <tool>` (GenAI
 * semantic conventions), each input or output guardrail as `guardrail <name>`, and each turn written
 * to long-term memory as `remember_memory` (`observe_memory` for turns condensed into observations),
 * and each `'auto'` recall into a turn's prompt as `recall_memory`. Activities do not replay, so each attempt
 * is one span. Content (messages, arguments, results) only with `recordContent`; never a credential:
 * tool results are the redacted ones the activity stored.
 */
export function genAiActivitySpans(
  registry: SpanAgents,
  telemetry: ActiveTelemetry,
): ActivityInterceptorsFactory {
  return (ctx) => ({ inbound: new GenAiActivitySpans(ctx.info.activityType, registry, telemetry) });
}

class GenAiActivitySpans implements ActivityInboundCallsInterceptor {
  readonly #type: string;
  readonly #registry: SpanAgents;
  readonly #telemetry: ActiveTelemetry;

  constructor(type: string, registry: SpanAgents, telemetry: ActiveTelemetry) {
    this.#type = type;
    this.#registry = registry;
    this.#telemetry = telemetry;
  }

  execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    if (this.#type === 'callModel') return this.#chat(input.args[0] as CallModelInput, () => next(input));
    // A run's opening step takes its first model step inside: traced as a `callModel` is.
    if (this.#type === 'openRun')
      return withModelStepWrapper(
        (request, step) => this.#chat(request, step),
        () => this.#withRecallSpans(() => next(input)),
      );
    if (this.#type === 'resolveRun') return this.#withRecallSpans(() => next(input));
    if (this.#type === 'invokeTool') return this.#tool(input.args[0] as InvokeToolInput, () => next(input));
    if (this.#type === 'checkGuardrail')
      return this.#guardrail(input.args[0] as CheckGuardrailInput, () => next(input));
    if (this.#type === 'rememberTurn' || this.#type === 'observeTurns')
      return this.#remember(input.args[0] as RememberTurnInput, () => next(input));
    return next(input);
  }

  #chat<T>(input: CallModelInput, run: () => Promise<T>): Promise<T> {
    const agent = this.#registry.get(input.agent);
    const adapter = agent?.models.get(input.model ?? agent.defaultModel);
    const { provider, model } = providerAndModel(adapter?.modelId ?? input.model ?? 'unknown');
    const attributes: Attributes = {
      [GEN_AI.operation]: 'chat',
      [GEN_AI.provider]: provider,
      [GEN_AI.requestModel]: model,
      [GEN_AI.agentName]: input.agent,
      [GEN_AI.conversationId]: input.conversationId,
    };
    return this.#inSpan(`chat ${model}`, SpanKind.CLIENT, attributes, async (span) => {
      if (this.#telemetry.recordContent && agent) {
        const messages = await agent.memoryStore.read(input.conversationId, { before: input.seq });
        span.setAttribute(GEN_AI.inputMessages, contentAttribute(toGenAiMessages(messages)));
      }
      const result = await run();
      const step = result as ModelStep;
      if (step.usage) {
        span.setAttribute(GEN_AI.inputTokens, step.usage.input_tokens);
        span.setAttribute(GEN_AI.outputTokens, step.usage.output_tokens);
        const written = (step.usage.cache_write_5m_tokens ?? 0) + (step.usage.cache_write_1h_tokens ?? 0);
        if (step.usage.cached_input_tokens)
          span.setAttribute(GEN_AI.cacheReadTokens, step.usage.cached_input_tokens);
        if (written) span.setAttribute(GEN_AI.cacheCreationTokens, written);
      }
      span.setAttribute(GEN_AI.responseFinishReasons, [step.toolCalls.length ? 'tool_call' : 'stop']);
      if (this.#telemetry.recordContent) {
        const answer = { role: 'assistant' as const, content: step.text, toolCalls: step.toolCalls };
        span.setAttribute(GEN_AI.outputMessages, contentAttribute(toGenAiMessages([answer])));
      }
      return result;
    });
  }

  #tool(input: InvokeToolInput, run: () => Promise<unknown>): Promise<unknown> {
    const { call } = input;
    const attributes: Attributes = {
      [GEN_AI.operation]: 'execute_tool',
      [GEN_AI.toolName]: call.name,
      [GEN_AI.toolCallId]: call.id,
      [GEN_AI.toolType]: 'function',
      [GEN_AI.agentName]: input.agent,
      ...(input.tenant === undefined ? {} : { [TENANT_ATTRIBUTE]: input.tenant }),
    };
    if (this.#telemetry.recordContent) attributes[GEN_AI.toolArguments] = contentAttribute(call.args ?? {});
    return this.#inSpan(`execute_tool ${call.name}`, SpanKind.INTERNAL, attributes, async (span) => {
      const outcome = (await run()) as ToolOutcome;
      if (this.#telemetry.recordContent)
        span.setAttribute(GEN_AI.toolResult, contentAttribute(outcome.preview));
      // A tool guardrail that stopped the call (it runs inside this activity).
      const stopped = outcome.guardrail ?? outcome.rejected;
      if (stopped) {
        span.setAttribute(GUARDRAIL.name, stopped.check);
        span.setAttribute(GUARDRAIL.verdict, outcome.guardrail ? 'tripwire' : 'reject');
        span.setAttribute(GUARDRAIL.phase, stopped.phase ?? 'before');
      }
      return outcome;
    });
  }

  /** An input or output guardrail: a span named `guardrail <name>`, with its kind and verdict (not what it said). */
  #guardrail(input: CheckGuardrailInput, run: () => Promise<unknown>): Promise<unknown> {
    const attributes: Attributes = {
      [GUARDRAIL.name]: input.name,
      [GUARDRAIL.kind]: input.kind,
      [GEN_AI.agentName]: input.agent,
      ...(input.tenant === undefined ? {} : { [TENANT_ATTRIBUTE]: input.tenant }),
    };
    return this.#inSpan(`guardrail ${input.name}`, SpanKind.INTERNAL, attributes, async (span) => {
      const verdict = (await run()) as RecordedVerdict;
      span.setAttribute(GUARDRAIL.verdict, Object.keys(verdict)[0] ?? 'allow');
      return verdict;
    });
  }

  /** Runs an activity that opens a turn with a `recall_memory` span around its `'auto'` recall. */
  #withRecallSpans<T>(work: () => Promise<T>): Promise<T> {
    return withMemoryRecallWrapper((recall, run) => this.#recall(recall, run), work);
  }

  /** A turn's `'auto'` recall from long-term memory: how many messages it put in the prompt, never their text. */
  #recall(input: MemoryRecallWork, run: () => Promise<MemoryRecallResult>): Promise<MemoryRecallResult> {
    const attributes: Attributes = {
      [GEN_AI.agentName]: input.agent,
      [GEN_AI.conversationId]: input.conversationId,
      [MEMORY_RECALL_MODE]: 'auto',
      ...(input.tenant === undefined ? {} : { [TENANT_ATTRIBUTE]: input.tenant }),
    };
    return this.#inSpan('recall_memory', SpanKind.INTERNAL, attributes, async (span) => {
      const recalled = await run();
      span.setAttribute(MEMORY_MESSAGES, recalled.ids.length);
      return recalled;
    });
  }

  /**
   * A turn written to long-term memory (`remember_memory`), or turns condensed into observations
   * (`observe_memory`): how many messages were written, never their text.
   */
  #remember(input: RememberTurnInput | ObserveTurnsInput, run: () => Promise<unknown>): Promise<unknown> {
    const attributes: Attributes = {
      [GEN_AI.agentName]: input.agent,
      [GEN_AI.conversationId]: input.conversationId,
    };
    const name = this.#type === 'observeTurns' ? 'observe_memory' : 'remember_memory';
    return this.#inSpan(name, SpanKind.INTERNAL, attributes, async (span) => {
      const ids = (await run()) as string[];
      span.setAttribute(MEMORY_MESSAGES, ids.length);
      return ids;
    });
  }

  /** Runs `work` in an active span that ends with it, with error status when it throws. */
  #inSpan<T>(
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    work: (span: Span) => Promise<T>,
  ): Promise<T> {
    return this.#telemetry.tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
      try {
        return await work(span);
      } catch (error) {
        markFailed(span, error);
        throw error;
      } finally {
        span.end();
      }
    });
  }
}

/** Error status and `error.type` (the failure's type, e.g. `ToolInputError`); the message is already redacted. */
export function markFailed(span: Span, error: unknown): void {
  span.setAttribute(GEN_AI.errorType, failureType(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}
