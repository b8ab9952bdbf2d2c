import { setTimeout as sleep } from 'node:timers/promises';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import type { ScriptedStep } from '../../src/models/scripted.ts';

/**
 * A ScriptedModel step that writes `words` words (`w1 `, `w2 `, …), one every `ms`, like a
 * streaming model, and honours cancellation.
 */
export const writes =
  (words: number, ms: number) =>
  async (request: ModelRequest): Promise<ScriptedStep> => {
    const text: string[] = [];
    for (let i = 1; i <= words; i++) {
      if (request.signal?.aborted) throw new Error('The model call was cancelled.');
      request.onTextDelta?.(`w${i} `);
      text.push(`w${i} `);
      await sleep(ms);
    }
    return { text: text.join('') };
  };
