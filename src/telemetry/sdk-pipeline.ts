import { ProxyTracerProvider, type TracerProvider } from '@opentelemetry/api';

/** A finished span as OpenTelemetry SDK span processors take it (fields of SDK 1.x and 2.x). */
export type FinishedSpan = Record<string, unknown> & { spanContext(): unknown; resource: unknown };

/** What an OpenTelemetry SDK provider sends finished spans through, and the resource it stamps on them. */
export interface SdkPipeline {
  processor: { onEnd(span: FinishedSpan): void };
  resource: unknown;
}

/**
 * The span processor and resource of an OpenTelemetry SDK tracer provider (`BasicTracerProvider`,
 * `NodeTracerProvider`, of SDK 1.x or 2.x, also behind the global proxy). Spans made inside the
 * workflow sandbox keep the ids they were given there (a replay gives them the same ones), so they
 * cannot be re-created through the API: they are handed to the provider's processor as finished
 * spans. Undefined for a provider that is not the SDK's.
 */
export function sdkPipeline(provider: TracerProvider): SdkPipeline | undefined {
  const sdk = (provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider) as {
    getActiveSpanProcessor?: () => SdkPipeline['processor'];
    activeSpanProcessor?: SdkPipeline['processor'];
    _activeSpanProcessor?: SdkPipeline['processor'];
    resource?: unknown;
    _resource?: unknown;
  };
  const processor =
    sdk._activeSpanProcessor ?? sdk.activeSpanProcessor ?? sdk.getActiveSpanProcessor?.call(sdk);
  const resource = sdk._resource ?? sdk.resource;
  if (typeof processor?.onEnd !== 'function' || !resource) return undefined;
  return { processor, resource };
}
