import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

const ITERATIONS = 10;
const OUTPUT_CHARS = 15_000;

/** Returns a large page of text, as a search or file read would. */
class BigReadTool extends BaseConnectorTool {
  readonly name = 'read_page';
  readonly description = 'Reads a large page';
  readonly parameters = z.object({ page: z.number() });
  async run(_context: unknown, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: `page ${String(args.page)} `.padEnd(OUTPUT_CHARS, 'lorem ipsum '), metadata: {} };
  }
}

describe('history size of a long conversation', () => {
  let env: TestWorker;
  beforeAll(async () => {
    const steps = Array.from({ length: ITERATIONS - 1 }, (_, i) => ({
      toolCalls: [{ name: 'read_page', args: { page: i + 1 } }],
    }));
    env = await startTestWorker({
      reader: {
        llm: new ScriptedModel([...steps, { text: 'Read them all.' }]),
        tools: [new BigReadTool()],
        maxIterations: ITERATIONS,
      },
    });
  });
  afterAll(() => env?.stop());

  it('grows by about the same number of bytes per iteration while the conversation grows', async () => {
    const handle = await env.agents.start('reader', 'Read every page');
    const result = await handle.result();
    expect(result.metadata).toMatchObject({ iterations: ITERATIONS, stop_reason: 'completed' });

    // The server reports the history size at each workflow task; take it after every model step.
    const history = await handle.workflow.fetchHistory();
    const events = history.events ?? [];
    const sizes: number[] = [];
    let afterModelStep = false;
    for (const event of events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      // The first model step is taken by the run's opening step (openRun).
      if (scheduled) afterModelStep = ['openRun', 'callModel'].includes(scheduled.activityType?.name ?? '');
      const started = event.workflowTaskStartedEventAttributes;
      if (started && afterModelStep) {
        sizes.push(Number(started.historySizeBytes));
        afterModelStep = false;
      }
    }
    const perIteration = sizes.slice(1).map((size, i) => size - sizes[i]!);
    const conversation = await env.memoryStore.read(handle.workflowId);
    const conversationChars = JSON.stringify(conversation).length;
    console.log(
      `history bytes per iteration: ${perIteration.join(', ')}; total history ${sizes.at(-1)} bytes; ` +
        `conversation ${conversationChars} chars`,
    );

    expect(perIteration).toHaveLength(ITERATIONS - 1);
    const first = perIteration[0]!;
    // Flat: every step adds about the same (a retried workflow task under load adds a few hundred bytes).
    for (const step of perIteration) expect(Math.abs(step - first)).toBeLessThan(first * 0.25);
    // Each step adds a capped preview, never the conversation so far.
    expect(Math.max(...perIteration)).toBeLessThan(OUTPUT_CHARS / 2);
    expect(conversationChars).toBeGreaterThan((ITERATIONS - 1) * OUTPUT_CHARS);
    // A third of the conversation, give or take: each step also carries its turn's ledger line (about
    // 80 bytes, so the answering step can record it), which is why this is not / 3.
    expect(sizes.at(-1)!).toBeLessThan(conversationChars / 2.5);
  });
});
