import { describe, expect, it } from 'vitest';
import { findLocalModel } from '../../src/models/local-model-file.ts';
import { LocalLlamaModel } from '../../src/models/local-llama.ts';
import { AddTool } from './tools.ts';
import { collect, ONE_TOOL_CALL_RUN, startTestWorker } from './helpers.ts';

const modelPath = await findLocalModel();
if (!modelPath) {
  console.warn(
    'Skipping the local-model test: no model file. Run `npm run model:local` (CI does) to fetch it.',
  );
}

describe.skipIf(!modelPath)('a local GGUF model (Gemma 3 270M through node-llama-cpp)', () => {
  it('runs a real agent end to end: the model calls a tool, then answers', async () => {
    const add = new AddTool();
    const llm = new LocalLlamaModel({ modelPath: modelPath!, toolChoice: 'required', contextSize: 2048 });
    const env = await startTestWorker({ local: { llm, tools: [add] } });
    try {
      const handle = await env.agents.start('local', 'What is 2 plus 3? Use the add tool.');
      const events = await collect(handle.events());
      const result = await handle.result();
      expect(add.ran).toHaveLength(1);
      expect(events.map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
      expect(result.output.trim()).not.toBe('');
      expect(result.metadata.model).toBe('local:gemma-3-270m-q4_k_m.gguf');
      expect(result.metadata.usage.input_tokens).toBeGreaterThan(50);
      console.log(
        `local model: called add(${JSON.stringify(add.ran[0])}) and answered ${JSON.stringify(result.output)}`,
      );
    } finally {
      await env.stop();
      await llm.close();
    }
  }, 180_000);
});
