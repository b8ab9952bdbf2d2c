/**
 * Names of the OpenTelemetry GenAI semantic conventions our spans use (workflow-safe: no I/O).
 * Spans: `invoke_agent <agent>` per run or chat turn, `chat <model>` per model step,
 * `execute_tool <tool>` per tool call.
 */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  tokenType: 'gen_ai.token.type',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  errorType: 'error.type',
} as const;

/** The instrumentation scope of our spans. */
export const TRACER_NAME = 'toolkit-agent';

/** Our own attribute: the run's tenant (end user), as in the `ToolkitTenant` search attribute. */
export const TENANT_ATTRIBUTE = 'toolkit_agent.tenant';

/** Content attributes are cut at this many characters. */
export const MAX_CONTENT_CHARS = 32_000;

/** `value` as JSON, cut to {@link MAX_CONTENT_CHARS}. */
export function contentAttribute(value: unknown): string {
  const json = typeof value === 'string' ? value : JSON.stringify(value);
  return json.length > MAX_CONTENT_CHARS ? `${json.slice(0, MAX_CONTENT_CHARS)}…` : json;
}

/**
 * The GenAI provider and model of a model adapter's id: `anthropic.messages:claude-sonnet-4-5`
 * (an AI SDK model) is provider `anthropic`, model `claude-sonnet-4-5`; `local:model.gguf` is
 * provider `local`; an id without a colon (`scripted`) is both.
 */
export function providerAndModel(modelId: string): { provider: string; model: string } {
  const colon = modelId.indexOf(':');
  if (colon < 0) return { provider: modelId, model: modelId };
  return { provider: modelId.slice(0, colon).split('.')[0]!, model: modelId.slice(colon + 1) };
}
