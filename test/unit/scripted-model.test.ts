import { describe, expect, it } from 'vitest';
import { ToolkitError } from '../../src/errors.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';

const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

describe('ScriptedModel', () => {
  it('answers its steps in order, gives tool calls ids, and records every request', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'add', args: { a: 1 } },
          { name: 'add', args: { a: 2 }, id: 'mine' },
        ],
      },
      (req) => ({ text: `saw ${req.messages.length} message(s)` }),
    ]);
    expect(await model.generate(request)).toEqual({
      text: '',
      toolCalls: [
        { id: 'call_1_1', name: 'add', args: { a: 1 } },
        { id: 'mine', name: 'add', args: { a: 2 } },
      ],
      reasoning: undefined,
      usage: undefined,
    });
    expect((await model.generate(request)).text).toBe('saw 1 message(s)');
    expect(model.calls).toHaveLength(2);
    expect(model.calls[0]!.messages).toEqual(request.messages);
    expect(() => model.assertAllStepsUsed()).not.toThrow();
  });

  it('fails loudly, and not retryably, on a step too many', async () => {
    const model = new ScriptedModel([{ text: 'only' }]);
    await model.generate(request);
    const error = await model.generate(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolkitError);
    expect((error as ToolkitError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/asked for step 2 but the script has only 1 step/);
  });

  it('fails loudly on steps never used', async () => {
    const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
    await model.generate(request);
    expect(() => model.assertAllStepsUsed()).toThrow(/1 of 2 step\(s\) were never used/);
  });

  it('stops a delayed step when the call is cancelled', async () => {
    const model = new ScriptedModel([{ text: 'slow', delayMs: 60_000 }]);
    const controller = new AbortController();
    const pending = model.generate({ ...request, signal: controller.signal });
    controller.abort(new Error('cancelled by test'));
    await expect(pending).rejects.toThrow('cancelled by test');
  });
});
