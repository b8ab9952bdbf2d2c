import { createTraceState } from '@opentelemetry/api';
import type { OpenTelemetrySinks, SerializableSpan } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { ActiveTelemetry } from './options.ts';
import { sdkPipeline, type FinishedSpan, type SdkPipeline } from './sdk-pipeline.ts';

/**
 * The `exporter` sink of the workflow interceptors bundled with the agent workflows: spans of the
 * workflow sandbox (`invoke_agent`, Temporal's `RunWorkflow` and `StartActivity`) go to the tracer
 * provider's span processor. Temporal does not call sinks while a workflow replays, so a run replayed
 * on another worker does not export its finished spans again. Without telemetry it drops them.
 */
export function workflowSpanSinks(
  telemetry: ActiveTelemetry | undefined,
  warn: (message: string) => void,
): InjectedSinks<OpenTelemetrySinks> {
  const pipeline = telemetry && sdkPipeline(telemetry.provider);
  if (telemetry && !pipeline) {
    warn(
      'telemetry: the tracer provider is not an OpenTelemetry SDK provider (BasicTracerProvider or ' +
        'NodeTracerProvider), so the spans made inside workflows (invoke_agent) are not exported; ' +
        'model and tool spans are.',
    );
  }
  return {
    exporter: {
      export: {
        fn: (info: WorkflowInfo, spans: SerializableSpan[]) => {
          if (!pipeline) return;
          for (const span of spans) pipeline.processor.onEnd(finishedSpan(span, info, pipeline));
        },
        callDuringReplay: false,
      },
    },
  };
}

/** A span serialized by the sandbox's SDK (1.x), with the fields SDK 1.x and 2.x processors read. */
function finishedSpan(span: SerializableSpan, info: WorkflowInfo, pipeline: SdkPipeline): FinishedSpan {
  const { traceState, ...ids } = span.spanContext;
  const spanContext = { ...ids, ...(traceState ? { traceState: createTraceState(traceState) } : {}) };
  const parentSpanContext = span.parentSpanId
    ? { traceId: ids.traceId, spanId: span.parentSpanId, traceFlags: ids.traceFlags, isRemote: false }
    : undefined;
  return {
    ...span,
    attributes: { ...span.attributes, temporalWorkflowId: info.workflowId, run_id: info.runId },
    spanContext: () => spanContext,
    parentSpanContext,
    instrumentationScope: span.instrumentationLibrary,
    resource: pipeline.resource,
  };
}
