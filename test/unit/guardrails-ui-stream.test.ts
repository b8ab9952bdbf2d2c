import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import { EventChunks } from '../../src/ui-stream/event-chunks.ts';

const at = new Date().toISOString();
const event = (seq: number, type: AgentEvent['type'], payload: Record<string, unknown> = {}): AgentEvent => ({
  seq,
  type,
  message: type,
  payload,
  timestamp: at,
});

describe('guardrail_tripped in the UI message stream', () => {
  it('drops the text a streaming check withdrew (reset-step) and says which check tripped', () => {
    const chunks = new EventChunks();
    const all = [
      event(1, 'run_started'),
      event(2, 'step_started', { iteration: 1 }),
      event(3, 'text_delta', { text: 'Here is the plan: ' }),
      event(4, 'guardrail_tripped', { kind: 'output', check: 'no_plans', reason: 'r', withdrawn: true }),
      event(5, 'run_completed', { output: '', stop_reason: 'guardrail' }),
    ].flatMap((e) => chunks.next(e));
    const types = all.map((c) => c.type);
    expect(types.indexOf('reset-step')).toBeGreaterThan(types.indexOf('text-delta'));
    const tripped = all.find((c) => c.type === 'data-guardrail-tripped') as { data: { check: string } };
    expect(tripped.data.check).toBe('no_plans');
    expect(all.at(-1)).toEqual({ type: 'finish', finishReason: 'other' });
  });

  it('keeps the text of a step when the check tripped on something else (an input check)', () => {
    const chunks = new EventChunks();
    const all = [
      event(1, 'run_started'),
      event(2, 'guardrail_tripped', { kind: 'input', check: 'screen', reason: 'r' }),
    ].flatMap((e) => chunks.next(e));
    expect(all.map((c) => c.type)).toEqual(['data-guardrail-tripped']);
  });
});
