import {
  context,
  createContextKey,
  propagation,
  ProxyTracerProvider,
  trace,
  type MeterProvider,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { requireOptional } from '../optional-dependency.ts';
import { TRACER_NAME } from './gen-ai.ts';

/** OpenTelemetry settings of a worker or client. */
export interface TelemetryOptions {
  /**
   * Where spans go. Default: the global provider of `@opentelemetry/api` when one is registered
   * (e.g. by the OpenTelemetry Node SDK), else tracing is off and costs nothing.
   */
  tracerProvider?: TracerProvider;
  /**
   * Put prompts, model output, tool arguments and tool results on the spans (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). Default off:
   * spans then carry names, ids, models and token counts only.
   */
  recordContent?: boolean;
  /**
   * Where metrics go: each model step's tokens on the `gen_ai.client.token.usage` histogram. Default:
   * the global meter provider of `@opentelemetry/api` when one is registered, else no metrics.
   */
  meterProvider?: MeterProvider;
}

/** Telemetry that is on: the provider, our tracer, and whether content is recorded. */
export interface ActiveTelemetry {
  provider: TracerProvider;
  tracer: Tracer;
  recordContent: boolean;
}

/**
 * The telemetry in force for `options`, or undefined when it is off (no provider given and none
 * registered). When on, makes sure trace context can cross process boundaries and `await`s: a W3C
 * trace-context propagator and an AsyncLocalStorage context manager are registered globally unless
 * the application registered its own.
 */
export function resolveTelemetry(options: TelemetryOptions | undefined): ActiveTelemetry | undefined {
  const provider = options?.tracerProvider ?? registeredProvider();
  if (!provider) return undefined;
  ensureContextPropagation();
  return {
    provider,
    tracer: provider.getTracer(TRACER_NAME),
    recordContent: options?.recordContent ?? false,
  };
}

/** The global provider, if the application registered one (the API's default is a no-op). */
function registeredProvider(): TracerProvider | undefined {
  const global = trace.getTracerProvider();
  const delegate = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  const noop = new ProxyTracerProvider().getDelegate();
  return delegate === noop || delegate.constructor === noop.constructor ? undefined : global;
}

const probe = createContextKey('toolkit-agent.probe');

function ensureContextPropagation(): void {
  if (propagation.fields().length === 0) propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const carried = context.with(context.active().setValue(probe, true), () =>
    context.active().getValue(probe),
  );
  if (carried === true) return;
  const hooks = requireOptional<{
    AsyncLocalStorageContextManager: typeof AsyncLocalStorageContextManager;
  }>(
    '@opentelemetry/context-async-hooks',
    'Tracing (OpenTelemetry context across awaits, when the application registered no context manager)',
  );
  context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
}
