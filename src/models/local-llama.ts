import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { ConfigurationError, ContextOverflowError } from '../errors.ts';
import { assertInstalled } from '../optional-dependency.ts';
import type { ModelAdapter, ModelRequest, ModelResponse } from './model-adapter.ts';
import { parseLocalReply, renderLocalPrompt, replyKind, replySchema } from './local-prompt.ts';
import { LocalAnswerStream, LocalObjectStream } from './local-answer-stream.ts';
import { llamaLogOptions } from './local-llama-log.ts';
import type { LlamaLogLevel } from 'node-llama-cpp';
import { resolveLogLevel, type WorkerLogLevel } from '../runtime-log.ts';

export interface LocalLlamaOptions {
  /** A GGUF model file (e.g. the Gemma 3 270M that `npm run model:local` assembles). */
  modelPath: string;
  /** Tokens of context. Default 4096. */
  contextSize?: number;
  /**
   * CPU threads. Default: `TOOLKIT_AGENT_LOCAL_THREADS`, else the cores this process may use (more
   * threads than free cores is far slower: llama.cpp's threads wait for each other).
   */
  threads?: number;
  /**
   * `required` makes the first step after each user message a tool call (when the agent has tools):
   * very small models cannot judge when a tool is needed. Default `auto`.
   */
  toolChoice?: 'auto' | 'required';
  /** Most tokens per reply. Default 512. */
  maxTokens?: number;
  temperature?: number;
  /**
   * What of llama.cpp's own log is shown, through our log: default `TOOLKIT_AGENT_LOG_LEVEL`, else
   * WARN (its errors only; its notes on the model file come at DEBUG).
   */
  logLevel?: WorkerLogLevel;
}

const DEFAULT_CONTEXT_SIZE = 4096;
const THREADS_ENV = 'TOOLKIT_AGENT_LOCAL_THREADS';

/**
 * The CPU threads of a model made without the `threads` option: `TOOLKIT_AGENT_LOCAL_THREADS`, else
 * the cores this process may use. On a machine busy with other work, fewer threads than cores answer
 * sooner and on less CPU.
 */
export function defaultLocalThreads(env: NodeJS.ProcessEnv = process.env): number {
  const given = env[THREADS_ENV];
  if (given === undefined || given === '') return availableParallelism();
  const threads = Number(given);
  if (!Number.isInteger(threads) || threads < 1) {
    throw new ConfigurationError(
      `${THREADS_ENV} is the offline model's CPU threads, a whole number of at least 1; got "${given}". Set it to 1 or more, or unset it to use every core.`,
    );
  }
  return threads;
}
const DEFAULT_MAX_TOKENS = 512;

interface Loaded {
  llama: { createGrammarForJsonSchema(schema: unknown): Promise<unknown> };
  model: { tokenize(text: string): unknown[]; dispose(): Promise<void> };
  completion: { generateCompletion(prompt: string, options: Record<string, unknown>): Promise<string> };
}

/**
 * A local GGUF model through `node-llama-cpp` (an optional package: `npm install node-llama-cpp`),
 * for offline runs. Tool calling uses a transcript and a JSON grammar, so even a small base model
 * always answers in a shape the agent can use. One step at a time per model; the model is loaded on
 * the first step and kept.
 */
export class LocalLlamaModel implements ModelAdapter {
  readonly specificationVersion = 'toolkit-agent.model.v1';
  /** A structured answer is held to its schema by the JSON grammar. */
  readonly structuredOutput = 'native';
  readonly modelId: string;
  readonly #options: LocalLlamaOptions;
  readonly #threads: number;
  #loading: Promise<Loaded> | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #steps = 0;

  constructor(options: LocalLlamaOptions) {
    if (!options?.modelPath) throw new ConfigurationError('LocalLlamaModel needs `modelPath`, a GGUF file.');
    // Said when the model is made (the config loads), not at the first step of a run.
    assertInstalled('node-llama-cpp', 'LocalLlamaModel (the offline model)');
    this.#options = options;
    this.#threads = options.threads ?? defaultLocalThreads();
    this.modelId = `local:${basename(options.modelPath)}`;
  }

  /** The context size minus the room kept for the reply. */
  get maxInputTokens(): number {
    return (
      (this.#options.contextSize ?? DEFAULT_CONTEXT_SIZE) - (this.#options.maxTokens ?? DEFAULT_MAX_TOKENS)
    );
  }

  /** Input tokens of a request by the model's own tokenizer (loads the model on first use). */
  async countTokens(request: Pick<ModelRequest, 'messages' | 'tools'>): Promise<number> {
    const { model } = await this.#load();
    return model.tokenize(renderLocalPrompt(request.messages, request.tools)).length;
  }

  generate(request: ModelRequest): Promise<ModelResponse> {
    const next = this.#queue.then(() => this.#generate(request));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #generate(request: ModelRequest): Promise<ModelResponse> {
    const { llama, model, completion } = await this.#load();
    const prompt = renderLocalPrompt(request.messages, request.tools, request.output?.schema);
    const input = model.tokenize(prompt).length;
    if (input > this.maxInputTokens) {
      throw new ContextOverflowError(
        `The prompt is too long for the local model: ${input} tokens > ${this.maxInputTokens} maximum ` +
          `(a context of ${this.#options.contextSize ?? DEFAULT_CONTEXT_SIZE} tokens, ` +
          `${this.#options.maxTokens ?? DEFAULT_MAX_TOKENS} kept for the reply).`,
        { tokens: input, limit: this.maxInputTokens },
      );
    }
    const kind = replyKind(request.messages, request.tools, this.#options.toolChoice ?? 'auto');
    const schema = request.output?.schema;
    const grammar = await llama.createGrammarForJsonSchema(replySchema(request.tools, kind, schema));
    const text = await completion.generateCompletion(prompt, {
      grammar,
      maxTokens: this.#options.maxTokens ?? DEFAULT_MAX_TOKENS,
      temperature: this.#options.temperature ?? 0,
      signal: request.signal,
      // A structured answer streams as its JSON (the run reads `partial_output` from it).
      ...(request.onTextDelta
        ? { onTextChunk: answerStream(request.onTextDelta, schema !== undefined) }
        : {}),
    });
    this.#steps += 1;
    const reply = parseLocalReply(text, `local_${this.#steps}`, schema);
    const output = model.tokenize(text).length;
    return { ...reply, usage: { input_tokens: input, output_tokens: output, total_tokens: input + output } };
  }

  #load(): Promise<Loaded> {
    this.#loading ??= (async () => {
      const llamaCpp = await import('node-llama-cpp').catch((error: unknown) => {
        throw new ConfigurationError(
          'LocalLlamaModel needs the node-llama-cpp package: npm install node-llama-cpp',
          {
            cause: error,
          },
        );
      });
      const logLevel = resolveLogLevel(this.#options.logLevel, 'WARN');
      const log = llamaLogOptions(logLevel);
      const llama = await llamaCpp.getLlama({
        gpu: false,
        logLevel: log.logLevel as LlamaLogLevel,
        logger: log.logger,
      });
      const model = await llama.loadModel({ modelPath: this.#options.modelPath });
      if (logLevel !== 'ERROR') sayOnce(this.#options.modelPath);
      const context = await model.createContext({
        contextSize: this.#options.contextSize ?? DEFAULT_CONTEXT_SIZE,
        threads: this.#threads,
      });
      // One sequence for every step: each step's prompt starts with the last one's (the transcript
      // grows), and the completion reads only the tokens after the part they share.
      const completion = new llamaCpp.LlamaCompletion({ contextSequence: context.getSequence() });
      return { llama, model, completion };
    })();
    this.#loading.catch(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  /** Frees the model's memory. */
  async close(): Promise<void> {
    const loading = this.#loading;
    this.#loading = undefined;
    if (loading) await (await loading.catch(() => undefined))?.model.dispose();
  }
}

/** Hands on the answer's text while the model writes its JSON reply. */
function answerStream(onText: (text: string) => void, structured: boolean): (chunk: string) => void {
  const stream = structured ? new LocalObjectStream(onText) : new LocalAnswerStream(onText);
  return (chunk) => stream.push(chunk);
}

/** Whether this process said which model the offline runs use. */
let said = false;

/** Says once per process that the offline model is for trying things out, and how to use a provider. */
function sayOnce(modelPath: string): void {
  if (said) return;
  said = true;
  process.stderr.write(
    `Using the offline model ${basename(modelPath)}: a small model for trying things out, not for real work. ` +
      'For real answers set ANTHROPIC_API_KEY (npm install @ai-sdk/anthropic) or OPENAI_API_KEY ' +
      '(npm install @ai-sdk/openai); docs/models.md has the others.\n',
  );
}
