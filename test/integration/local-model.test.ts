import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContextOverflowError } from '../../src/errors.ts';
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
  it("says llama.cpp's notes on the model file only at DEBUG, through our log, never coloured", async () => {
    const answer = (level: string | undefined) => {
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
      delete env.TOOLKIT_AGENT_LOG_LEVEL;
      if (level) env.TOOLKIT_AGENT_LOG_LEVEL = level;
      const fixture = new URL('../fixtures/local-model-answer.ts', import.meta.url).pathname;
      return promisify(execFile)(process.execPath, [fixture, modelPath!], { env });
    };
    const quiet = await answer(undefined);
    expect(quiet.stdout).toMatch(/^answer: /);
    // This model's tokenizer note ("control-looking token … probably a bug in the model") is not the user's to act on;
    // the one line said is what the model is for and how to use another.
    expect(quiet.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^Using the offline model gemma.*: a small model for trying things out.*ANTHROPIC_API_KEY/,
      ),
    ]);
    const detailed = await answer('debug');
    expect(detailed.stderr).toMatch(/^DEBUG node-llama-cpp: .*control-looking token/m);
    expect(detailed.stderr).not.toContain('\u001b[');
    expect(detailed.stderr).not.toContain('[node-llama-cpp]');
  });

  it('runs a real agent end to end: the model calls a tool, then answers', async () => {
    const add = new AddTool();
    const llm = new LocalLlamaModel({ modelPath: modelPath!, toolChoice: 'required', contextSize: 2048 });
    const env = await startTestWorker({ local: { llm, tools: [add] } });
    try {
      const handle = await env.agents.start('local', 'What is 2 plus 3? Use the add tool.');
      const events = await collect(handle.events());
      const result = await handle.result();
      expect(add.ran).toHaveLength(1);
      // The local model streams its answer too: live text, then the same text as the result.
      expect(events.map((e) => e.type).filter((type) => type !== 'text_delta')).toEqual(ONE_TOOL_CALL_RUN);
      const deltas = events.filter((e) => e.type === 'text_delta').map((e) => e.payload.text);
      expect(deltas.length).toBeGreaterThan(0);
      expect(deltas.join('')).toBe(result.output);
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

  it('counts a request with its real tokenizer, and refuses one larger than its context with ContextOverflowError', async () => {
    const llm = new LocalLlamaModel({ modelPath: modelPath!, contextSize: 1024, maxTokens: 64 });
    try {
      expect(llm.maxInputTokens).toBe(960);
      const request = {
        messages: [
          { role: 'system' as const, content: 'Answer briefly.' },
          { role: 'user' as const, content: 'Say hello.' },
        ],
        tools: [],
      };
      const counted = await llm.countTokens(request);
      const answered = await llm.generate(request);
      expect(answered.usage!.input_tokens).toBe(counted);
      const tooLong = { ...request, messages: [{ role: 'user' as const, content: 'word '.repeat(2_000) }] };
      const error = await llm.generate(tooLong).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ContextOverflowError);
      expect((error as ContextOverflowError).limit).toBe(960);
      expect((error as ContextOverflowError).tokens).toBe(await llm.countTokens(tooLong));
    } finally {
      await llm.close();
    }
  }, 180_000);

  it('answers a structured run within the JSON-schema grammar: the object matches the schema', async () => {
    const llm = new LocalLlamaModel({ modelPath: modelPath!, contextSize: 2048, maxTokens: 96 });
    const City = z.object({ city: z.string(), country: z.string(), population_millions: z.number() });
    const env = await startTestWorker({ local: { llm } });
    try {
      const handle = await env.agents.start('local', 'Describe Paris as JSON: city, country, population.', {
        output: City,
        outputRepairs: 0,
      });
      const events = await collect(handle.events());
      const result = await handle.result();
      expect(City.safeParse(result.output).success).toBe(true);
      expect(result.metadata).toMatchObject({ stop_reason: 'completed', iterations: 1, output_repairs: 0 });
      // Live text is the object's JSON, and the run read it as it came.
      expect(events.some((e) => e.type === 'partial_output')).toBe(true);
      console.log(`local model: structured answer ${JSON.stringify(result.output)}`);
    } finally {
      await env.stop();
      await llm.close();
    }
  }, 180_000);
});
