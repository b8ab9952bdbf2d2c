import type { ClientInterceptors } from '@temporalio/client';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerInterceptors, WorkerOptions } from '@temporalio/worker';
import { genAiActivitySpans, type SpanAgents } from './activity-spans.ts';
import { resolveTelemetry, type TelemetryOptions } from './options.ts';
import { genAiTokenMetrics, resolveMeterProvider } from './token-metrics.ts';
import { workflowSpanSinks } from './workflow-span-sink.ts';

/** The tracer name of the spans Temporal's interceptors make (`StartWorkflow`, `RunActivity`, ...). */
const TEMPORAL_TRACER = '@temporalio/interceptors-opentelemetry';

/**
 * Client interceptors that carry the caller's trace context into the runs and chat turns a client
 * starts (Temporal's OpenTelemetry interceptor). Empty when telemetry is off. `AgentClient.connect`
 * and `Agent` add them; pass them to a `Client` you build yourself.
 *
 * @example
 * const client = new Client({ connection, interceptors: telemetryClientInterceptors({ tracerProvider }) });
 */
export function telemetryClientInterceptors(options?: TelemetryOptions): ClientInterceptors {
  const telemetry = resolveTelemetry(options);
  if (!telemetry) return {};
  const tracer = telemetry.provider.getTracer(TEMPORAL_TRACER);
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer })] };
}

/**
 * The worker options that trace an agent worker: Temporal's activity interceptors (context from the
 * workflow's headers), ours (`chat` and `execute_tool` spans), and the sink of the spans made in the
 * workflow sandbox. The sink is there even with telemetry off, since the bundled workflow
 * interceptors always call it. Keeps the interceptors and sinks of `base`.
 */
export function telemetryWorkerOptions(
  registry: SpanAgents,
  options: TelemetryOptions | undefined,
  base: Pick<WorkerOptions, 'interceptors' | 'sinks'> = {},
): { interceptors: WorkerInterceptors; sinks: NonNullable<WorkerOptions['sinks']> } {
  const telemetry = resolveTelemetry(options);
  const warn = (message: string) => process.emitWarning(message, { code: 'TOOLKIT_AGENT_TELEMETRY' });
  const sinks = { ...base.sinks, ...workflowSpanSinks(telemetry, warn) };
  const meterProvider = resolveMeterProvider(options?.meterProvider);
  const tokenMetrics = meterProvider ? [genAiTokenMetrics(registry, meterProvider)] : [];
  if (!telemetry) {
    const interceptors = base.interceptors ?? {};
    if (!tokenMetrics.length) return { interceptors, sinks };
    return {
      interceptors: { ...interceptors, activity: [...(interceptors.activity ?? []), ...tokenMetrics] },
      sinks,
    };
  }
  const tracer = telemetry.provider.getTracer(TEMPORAL_TRACER);
  return {
    interceptors: {
      ...base.interceptors,
      activity: [
        ...(base.interceptors?.activity ?? []),
        ...tokenMetrics,
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
        genAiActivitySpans(registry, telemetry),
      ],
    },
    sinks,
  };
}
