import type * as Ai from 'ai';
import { ConfigurationError } from '../errors.ts';
import { aiPackage } from '../ui-stream/ai-package.ts';

/**
 * Turns texts into vectors for recall by meaning. `id` names the model (and its settings): vectors
 * are stored with it, and a message whose vector came from another id is embedded again.
 */
export interface Embedder {
  readonly id: string;
  /**
   * One vector per text, in the order of `texts`; every vector of one embedder has the same length.
   * An embedder that knows what it spent adds its tokens to `usage.tokens` (for the usage ledger).
   */
  embed(texts: string[], usage?: EmbeddingTokens): Promise<Float32Array[]>;
  /** Frees what the embedder holds (a loaded model). */
  close?(): Promise<void>;
}

/** Tokens an embedder spent, added up over its calls. */
export interface EmbeddingTokens {
  tokens: number;
}

/**
 * An AI SDK embedding model (the `ai` package's `EmbeddingModel`, e.g.
 * `openai.embedding('text-embedding-3-small')`): the part of it toolkit-agent reads, written out so
 * that these types need no `ai` package installed.
 */
export interface AiSdkEmbeddingModel {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  doEmbed(options: never): PromiseLike<unknown>;
}

/** What `LongTermMemory`'s `embedder` takes: an AI SDK embedding model or an {@link Embedder}. */
export type EmbedderOption = Embedder | AiSdkEmbeddingModel;

/** The {@link Embedder} for an option: itself, or an AI SDK model called through `embedMany`. */
export function toEmbedder(option: EmbedderOption): Embedder {
  if (isEmbedder(option)) return option;
  if (typeof (option as Partial<AiSdkEmbeddingModel> | undefined)?.doEmbed === 'function')
    return aiSdkEmbedder(option);
  throw new ConfigurationError(
    'LongTermMemory: embedder must be an AI SDK embedding model (e.g. openai.embedding("text-embedding-3-small")), ' +
      'localEmbedder() from toolkit-agent/memory, or an object with { id, embed(texts) }.',
  );
}

function isEmbedder(option: unknown): option is Embedder {
  const candidate = option as Partial<Embedder> | undefined;
  return typeof candidate?.embed === 'function' && typeof candidate.id === 'string';
}

/** An AI SDK embedding model as an {@link Embedder}; its id is `<provider>:<model id>`. */
function aiSdkEmbedder(model: AiSdkEmbeddingModel): Embedder {
  return {
    id: `${model.provider}:${model.modelId}`,
    async embed(texts, usage) {
      if (texts.length === 0) return [];
      const { embedMany } = aiPackage('LongTermMemory with an AI SDK embedding model');
      const result = await embedMany({ model: model as unknown as Ai.EmbeddingModel, values: texts });
      const { embeddings } = result;
      if (usage) usage.tokens += result.usage?.tokens ?? 0;
      return embeddings.map((embedding) => Float32Array.from(embedding));
    },
  };
}
