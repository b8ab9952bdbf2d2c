import { afterAll, describe, expect, it } from 'vitest';
import { RunFailedError, ToolkitError } from '../../src/errors.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { activitiesIn, collect, firstEvent, startTestWorker, type TestWorker } from './helpers.ts';

/**
 * A turn opens with `openRun` (src/activities/open-run.ts): the run is resolved and its first model
 * step taken in one activity. What it keeps of a first step taken on its own: live text, events in
 * order, the agent's attempts and deadline, a stop from outside.
 */
describe('the opening step: the run resolved and its first model step taken in one activity', () => {
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  const retryable = () => {
    throw new ToolkitError('PROVIDER', 'The provider is overloaded (529).', { retryable: true });
  };

  it('streams the first step’s text after step_started, in one activity and no local one', async () => {
    const llm = new ScriptedModel([
      async (request: ModelRequest) => {
        request.onTextDelta?.('Hello ');
        await new Promise((resolve) => setTimeout(resolve, 200));
        request.onTextDelta?.('there.');
        return { text: 'Hello there.' };
      },
    ]);
    const env = await startTestWorker({ agent: { llm, maxIterations: 3, liveText: { batchMs: 50 } } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Greet me');
    expect((await handle.result()).output).toBe('Hello there.');
    const events = await collect(handle.events());
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('run_started');
    expect(types[1]).toBe('step_started');
    expect(events[1]!.message).toBe('Step 1 of at most 3');
    expect(types.filter((type) => type === 'step_started')).toHaveLength(1);
    expect(types.at(-1)).toBe('run_completed');
    const text = events.filter((e) => e.type === 'text_delta').map((e) => e.payload.text);
    expect(text.join('')).toBe('Hello there.');

    const history = (await handle.workflow.fetchHistory()).events ?? [];
    const { scheduled, localMarkers } = activitiesIn(history);
    expect(scheduled).toEqual(['openRun']);
    expect(localMarkers).toBe(0);
    // No signal: the text went to readers on the live channel (which says the step started), and
    // the step's limit came with its result.
    expect(history.filter((e) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(0);
  });

  it('says the first step started while a silent model still thinks', async () => {
    let answered = false;
    const llm = new ScriptedModel([
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        answered = true;
        return { text: 'Done thinking.' };
      },
    ]);
    const env = await startTestWorker({ agent: { llm } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Think');
    const started = await firstEvent(handle.events(), 'step_started');
    expect(started.payload).toMatchObject({ iteration: 1 });
    expect(answered).toBe(false);
    expect((await handle.result()).output).toBe('Done thinking.');
  });

  it('takes a first step that failed again with the attempts the agent has left', async () => {
    const llm = new ScriptedModel([retryable, retryable, { text: 'third time' }]);
    const env = await startTestWorker({ agent: { llm, timeouts: { modelMaxAttempts: 3 } } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Hello');
    expect((await handle.result()).output).toBe('third time');
    expect(llm.calls).toHaveLength(3);
    const { scheduled } = activitiesIn((await handle.workflow.fetchHistory()).events ?? []);
    expect(scheduled).toEqual(['openRun', 'callModel']);
  });

  it('fails the run when the agent allows the first step one attempt, without asking again', async () => {
    const llm = new ScriptedModel([retryable, { text: 'never asked' }]);
    const env = await startTestWorker({ agent: { llm, timeouts: { modelMaxAttempts: 1 } } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Hello');
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RunFailedError);
    expect((failure as Error).message).toMatch(/The provider is overloaded \(529\)/);
    expect(llm.calls).toHaveLength(1);
    const { scheduled } = activitiesIn((await handle.workflow.fetchHistory()).events ?? []);
    expect(scheduled).toEqual(['openRun']);
  });

  it('is stopped by a cancel while the model thinks, and the run ends cancelled at once', async () => {
    const llm = new ScriptedModel([{ text: 'too late', delayMs: 60_000 }]);
    const env = await startTestWorker({ agent: { llm } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Think for a minute');
    await firstEvent(handle.events(), 'step_started');
    const asked = Date.now();
    await handle.cancel('enough');
    const result = await handle.result();
    expect(result.metadata.stop_reason).toBe('cancelled');
    // Not after the minute the model would take (with room for a slow machine).
    expect(Date.now() - asked).toBeLessThan(30_000);
    const types = (await collect(handle.events())).map((e) => e.type);
    expect(types).toEqual(['run_started', 'step_started', 'run_cancelled']);
  });

  it('stops the first step at the agent’s deadline, which the workflow learns only from the plan', async () => {
    const llm = new ScriptedModel([{ text: 'too late', delayMs: 60_000 }]);
    const env = await startTestWorker({ agent: { llm, timeoutMs: 1_500 } });
    workers.push(env);
    const started = Date.now();
    const handle = await env.agents.start('agent', 'Think for a minute');
    const result = await handle.result();
    expect(result.metadata.stop_reason).toBe('deadline');
    // At the deadline, not after the minute the model would take (with room for a slow machine).
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(llm.calls).toHaveLength(1);
  });
});
