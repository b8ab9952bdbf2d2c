import type { ModelAdapter, ModelRequest, ModelResponse } from '../../src/models/model-adapter.ts';

/**
 * A model for many concurrent runs: on a run's first step it calls `tool` (when given and offered) once, then
 * answers. Its token counts come from what it was sent (input: characters of the conversation / 4,
 * output: a number of its own per step), so runs differ and a double count shows.
 */
export function countingModel(
  opts: { tool?: string; modelId?: string; delayMs?: number } = {},
): ModelAdapter {
  let step = 0;
  return {
    specificationVersion: 'toolkit-agent.model.v1',
    modelId: opts.modelId ?? 'counting',
    async generate(request: ModelRequest): Promise<ModelResponse> {
      if (opts.delayMs) await new Promise((resolve) => setTimeout(resolve, opts.delayMs));
      step += 1;
      const chars = request.messages.reduce((n, m) => n + JSON.stringify(m).length, 0);
      const input = Math.ceil(chars / 4);
      const output = 7 + (step % 11);
      const usage = { input_tokens: input, output_tokens: output, total_tokens: input + output };
      const called = request.messages.some((m) => m.role === 'tool');
      const offered = request.tools.some((tool) => tool.function.name === opts.tool);
      if (opts.tool && offered && !called)
        return {
          text: '',
          toolCalls: [{ id: `call-${step}`, name: opts.tool, args: { note: `n${step}` } }],
          usage,
        };
      return { text: `done after ${request.messages.length} messages`, toolCalls: [], usage };
    },
  };
}
