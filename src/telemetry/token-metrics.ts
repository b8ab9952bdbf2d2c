import { createNoopMeter, metrics, type Histogram, type MeterProvider } from '@opentelemetry/api';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import type { CallModelInput, ModelStep } from '../common/index.ts';
import { withModelStepWrapper } from '../activities/model-step-wrappers.ts';
import type { SpanAgents } from './activity-spans.ts';
import { GEN_AI, providerAndModel, TENANT_ATTRIBUTE, TRACER_NAME } from './gen-ai.ts';

/** The GenAI semantic conventions' token histogram: input and output tokens per model call. */
export const TOKEN_USAGE_METRIC = 'gen_ai.client.token.usage';

/** The meter provider in force: the one given, else the global one when the application registered one. */
export function resolveMeterProvider(given: MeterProvider | undefined): MeterProvider | undefined {
  if (given) return given;
  const global = metrics.getMeterProvider();
  // The API's default provider hands out no-op meters: metrics are off then.
  const noop = createNoopMeter().constructor;
  return global.getMeter(TRACER_NAME) instanceof noop ? undefined : global;
}

/**
 * An activity interceptor that records each model step's tokens on the `gen_ai.client.token.usage`
 * histogram (unit `{token}`), once with `gen_ai.token.type` `input` and once `output`, with
 * `gen_ai.operation.name`, `gen_ai.provider.name` and `gen_ai.request.model` (and the tenant).
 * See https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/.
 */
export function genAiTokenMetrics(
  registry: SpanAgents,
  provider: MeterProvider,
): ActivityInterceptorsFactory {
  const histogram = provider.getMeter(TRACER_NAME).createHistogram(TOKEN_USAGE_METRIC, {
    description: 'Number of input and output tokens used',
    unit: '{token}',
    advice: {
      explicitBucketBoundaries: [
        1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
      ],
    },
  });
  return (ctx) => {
    if (ctx.info.activityType === 'callModel') return { inbound: new TokenUsage(registry, histogram) };
    // A run's opening step takes its first model step inside: counted as a `callModel` is.
    if (ctx.info.activityType === 'openRun')
      return { inbound: new AroundModelSteps(new TokenUsage(registry, histogram)) };
    return { inbound: new PassThrough() };
  };
}

class PassThrough implements ActivityInboundCallsInterceptor {
  execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    return next(input);
  }
}

/** Records the tokens of the model steps an activity takes inside itself. */
class AroundModelSteps implements ActivityInboundCallsInterceptor {
  readonly #usage: TokenUsage;

  constructor(usage: TokenUsage) {
    this.#usage = usage;
  }

  execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    return withModelStepWrapper(
      async (request, step) => this.#usage.record(request, await step()),
      () => next(input),
    );
  }
}

class TokenUsage implements ActivityInboundCallsInterceptor {
  readonly #registry: SpanAgents;
  readonly #histogram: Histogram;

  constructor(registry: SpanAgents, histogram: Histogram) {
    this.#registry = registry;
    this.#histogram = histogram;
  }

  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    return this.record(input.args[0] as CallModelInput, (await next(input)) as ModelStep);
  }

  /** The step's tokens, by type, on the histogram; returns the step. */
  record(request: CallModelInput, step: ModelStep): ModelStep {
    if (!step?.usage) return step;
    const agent = this.#registry.get(request.agent);
    const adapter = agent?.models.get(request.model ?? agent.defaultModel);
    const { provider, model } = providerAndModel(adapter?.modelId ?? request.model ?? 'unknown');
    const attributes = {
      [GEN_AI.operation]: 'chat',
      [GEN_AI.provider]: provider,
      [GEN_AI.requestModel]: model,
      ...(request.tenant === undefined ? {} : { [TENANT_ATTRIBUTE]: request.tenant }),
    };
    this.#histogram.record(step.usage.input_tokens, { ...attributes, [GEN_AI.tokenType]: 'input' });
    this.#histogram.record(step.usage.output_tokens, { ...attributes, [GEN_AI.tokenType]: 'output' });
    // Parts of the input, by prompt-cache class: recorded only when the provider gave them.
    for (const [type, tokens] of [
      ['cache_read', step.usage.cached_input_tokens],
      ['cache_write_5m', step.usage.cache_write_5m_tokens],
      ['cache_write_1h', step.usage.cache_write_1h_tokens],
    ] as const)
      if (tokens) this.#histogram.record(tokens, { ...attributes, [GEN_AI.tokenType]: type });
    return step;
  }
}
