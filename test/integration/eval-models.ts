import type { Message } from '../../src/common/messages.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';

export const usage = (n: number) => ({ input_tokens: n, output_tokens: n, total_tokens: 2 * n });

/**
 * A model for `steps` steps that adds the two numbers of the user's last message with the `add`
 * tool, then says the tool's result: its answer follows the prompt, so one model serves runs (and
 * chat turns) in any order.
 */
export function adder(steps: number): ScriptedModel {
  const step = (request: ModelRequest): ScriptedStep => {
    const last = request.messages.at(-1) as Message;
    if (last.role === 'tool') return { text: `The sum is ${last.content}.`, usage: usage(5) };
    const prompt = request.messages.findLast((m) => m.role === 'user')?.content ?? '';
    const [a, b] = (prompt.match(/\d+/g) ?? []).map(Number);
    return { toolCalls: [{ name: 'add', args: { a, b } }], usage: usage(10) };
  };
  return new ScriptedModel(Array.from({ length: steps }, () => step));
}
