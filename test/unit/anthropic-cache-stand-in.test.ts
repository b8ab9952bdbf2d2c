import { describe, expect, it } from 'vitest';
import { AnthropicPromptCache } from '../support/providers/anthropic-cache.ts';

const LONG = 'x'.repeat(4_500); // 1,500 tokens as the stand-in counts
const mark = (ttl?: '1h') => ({ cache_control: { type: 'ephemeral', ...(ttl ? { ttl } : {}) } });

function request(messages: Array<Record<string, unknown>>, system: Array<Record<string, unknown>> = []) {
  return {
    model: 'claude-sonnet-4-5',
    system: [{ type: 'text', text: LONG, ...mark() }, ...system],
    messages: messages.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content: [content] })),
  };
}

describe('the Anthropic prompt-cache stand-in follows the service rules', () => {
  it('writes at a breakpoint, reads the prefix on the next request, and bills the rest as input', () => {
    const cache = new AnthropicPromptCache();
    const first = cache.charge(request([{ type: 'text', text: 'hello' }]), 5);
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation.ephemeral_5m_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(first.cache_creation_input_tokens).toBeGreaterThanOrEqual(1500);
    const second = cache.charge(request([{ type: 'text', text: 'other question' }]), 5);
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBe(0);
    expect(second.input_tokens).toBeGreaterThan(0);
  });

  it('caches nothing below the minimum length, and lets an entry expire after its TTL', () => {
    const cache = new AnthropicPromptCache();
    const short = {
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', ...mark() }] }],
    };
    expect(cache.charge(short, 1).cache_creation_input_tokens).toBe(0);
    cache.charge(request([{ type: 'text', text: 'a' }]), 1);
    cache.advance(4 * 60_000);
    expect(cache.charge(request([{ type: 'text', text: 'b' }]), 1).cache_read_input_tokens).toBeGreaterThan(
      0,
    );
    cache.advance(6 * 60_000);
    expect(cache.charge(request([{ type: 'text', text: 'c' }]), 1).cache_read_input_tokens).toBe(0);
  });

  it('finds an earlier entry up to 20 blocks before a breakpoint, not further', () => {
    const blocks = (n: number) => {
      const list: Array<Record<string, unknown>> = Array.from({ length: n }, (_, i) => ({
        type: 'text',
        text: `turn ${i}`,
      }));
      list[n - 1] = { ...list[n - 1], ...mark() };
      return list;
    };
    const written = (cache: AnthropicPromptCache) => {
      const usage = cache.charge(request(blocks(1)), 1);
      return usage.cache_creation_input_tokens;
    };
    const near = new AnthropicPromptCache();
    const head = written(near);
    // The first message is 18 blocks before the breakpoint: found, with the system prompt before it.
    expect(near.charge(request(blocks(19)), 1).cache_read_input_tokens).toBe(head);
    const far = new AnthropicPromptCache();
    written(far);
    // 29 blocks back: only the system prompt's own breakpoint is read.
    const system = far.requests[0]!.breakpoints[0]!;
    expect(system.index).toBe(0);
    expect(far.charge(request(blocks(30)), 1).cache_read_input_tokens).toBeLessThan(head);
    expect(far.requests[1]!.usage.cache_read_input_tokens).toBeGreaterThan(1500);
  });

  it('refuses a fifth breakpoint and a 1-hour breakpoint after a 5-minute one', () => {
    const cache = new AnthropicPromptCache();
    const five = request([1, 2, 3, 4].map((i) => ({ type: 'text', text: `m${i}`, ...mark() })));
    expect(cache.refusal(five)).toMatch(/maximum of 4 blocks with cache_control/);
    const mixed = request([{ type: 'text', text: 'late', ...mark('1h') }]);
    expect(cache.refusal(mixed)).toMatch(/ttl=1h .* must not come after .* ttl=5m/);
    expect(cache.refusal(request([{ type: 'text', text: 'ok', ...mark() }]))).toBeUndefined();
  });
});
