import { z } from 'zod';
import type { ModelAdapter, ModelRequest, ModelResponse } from '../src/models/model-adapter.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../src/tools/connector-base.ts';

/** Asks for the no-op tool until the run has had `iterations - 1` tool steps, then answers. */
export class LoopModel implements ModelAdapter {
  readonly specificationVersion = 'toolkit-agent.model.v1';
  readonly modelId = 'bench-loop';
  readonly iterations: number;
  readonly delayMs: number;
  constructor(iterations: number, delayMs = 0) {
    this.iterations = iterations;
    this.delayMs = delayMs;
  }
  async generate(request: ModelRequest): Promise<ModelResponse> {
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const steps = request.messages.filter((m) => m.role === 'assistant').length;
    if (steps >= this.iterations - 1) return { text: 'done', toolCalls: [] };
    return { text: '', toolCalls: [{ id: `c${steps}`, name: 'noop', args: { n: steps } }] };
  }
}

/** A model that answers `ok` at once, with no tool call: a chat turn at the floor of its cost. */
export const instantModel: ModelAdapter = {
  specificationVersion: 'toolkit-agent.model.v1',
  modelId: 'instant',
  async generate(): Promise<ModelResponse> {
    return { text: 'ok', toolCalls: [] };
  },
};

/** The tool the loop model asks for: does nothing. */
export class NoopTool extends BaseConnectorTool {
  readonly name = 'noop';
  readonly description = 'Does nothing';
  readonly parameters = z.object({ n: z.number() });
  async run(_context: ToolContext, _args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: 'ok', metadata: {} };
  }
}
