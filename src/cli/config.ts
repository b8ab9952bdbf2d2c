import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FileCredentialStore } from '../credentials/file-store.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { dataDir } from '../paths.ts';
import { checkConfigKeys } from './config-check.ts';
import type { ToolkitAgentConfig } from './config-types.ts';
import { CliError, UsageError } from './output.ts';

/** The file names `toolkit-agent` looks for, in the current folder and its parents. */
export const CONFIG_FILES = [
  'toolkit-agent.config.ts',
  'toolkit-agent.config.mts',
  'toolkit-agent.config.js',
  'toolkit-agent.config.mjs',
];

export interface LoadedConfig {
  path: string;
  config: ToolkitAgentConfig;
}

/** Finds the config file: `explicit`, else the nearest of {@link CONFIG_FILES} from `cwd` upwards. */
export function findConfigFile(explicit: string | undefined, cwd = process.cwd()): string | undefined {
  if (explicit) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new UsageError(`No config file at ${path}.`);
    return path;
  }
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    for (const name of CONFIG_FILES) if (existsSync(join(dir, name))) return join(dir, name);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Loads the config, or fails saying how to make one. */
export async function loadConfig(explicit?: string): Promise<LoadedConfig> {
  const path = findConfigFile(explicit);
  if (!path) {
    throw new CliError(
      'No toolkit-agent.config.ts here or in a parent folder. Run `toolkit-agent init` to write one, or pass --config <file>.',
    );
  }
  let module: { default?: unknown; config?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as typeof module;
  } catch (error) {
    throw new CliError(`Could not load ${path}: ${loadFailure(error)}`);
  }
  const config = (module.default ?? module.config) as ToolkitAgentConfig | undefined;
  if (!config || typeof config !== 'object') {
    throw new CliError(
      `${path} must export its config as default: export default defineConfig({ agents: { ... } }).`,
    );
  }
  checkConfigKeys(config, path);
  return { path, config: { ...config, agents: config.agents ?? {} } };
}

/**
 * Why a config did not load. A syntax error keeps what Node prints of it (the file and line, the
 * line itself and a caret under the fault), not only its last line.
 */
function loadFailure(error: unknown): string {
  const missing = missingPackage(error);
  if (missing) {
    return `it imports the package ${missing}, which is not installed in this project: npm install ${missing}`;
  }
  if (!(error instanceof SyntaxError) || !error.stack) return (error as Error).message;
  const report = error.stack.split('\n    at ')[0]!.trim();
  return `\n${numberedFrame(report) ?? report}`;
}

/**
 * Node's report of a syntax error with each source line numbered, so the caret's line is plain (Node
 * prints the line after the caret too), and a word on where the mistake may really be: a bracket,
 * comma or quote left open is noticed lines later. Undefined when the report has another shape.
 */
function numberedFrame(report: string): string | undefined {
  const parts = /^((?:file:\/\/)?\/\S+?):(\d+)\n\n?([\s\S]*?)\n\n(SyntaxError[\s\S]*)$/.exec(report);
  if (!parts) return undefined;
  const [, url, lineText, frame, message] = parts as unknown as [string, string, string, string, string];
  const lines = frame.split('\n');
  const caret = lines.findIndex((text) => /^\s*\^+\s*$/.test(text));
  if (caret < 1) return undefined;
  const line = Number(lineText);
  const width = String(line + lines.length).length;
  const numbered = lines.map((text, i) =>
    i === caret
      ? `${' '.repeat(width + 3)}${text}`
      : `${String(i < caret ? line - (caret - 1 - i) : line + (i - caret)).padStart(width)} | ${text}`,
  );
  return [
    `${url.startsWith('file:') ? fileURLToPath(url) : url}:${line}`,
    ...numbered,
    message,
    `(Found at line ${line}; a bracket, comma or quote left open on an earlier line is found only where the code stops making sense.)`,
  ].join('\n');
}

/** The package an import could not find (`ERR_MODULE_NOT_FOUND` of a bare name), if that is the failure. */
function missingPackage(error: unknown): string | undefined {
  if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  return /Cannot find package '((?:@[^/']+\/)?[^/']+)/.exec((error as Error).message)?.[1];
}

/** The config's agent `name`, or its default agent. */
export function pickAgent(config: ToolkitAgentConfig, name?: string): string {
  const names = Object.keys(config.agents);
  if (!names.length) throw new CliError('The config has no agents: add one under `agents`.');
  const chosen = name ?? config.defaultAgent ?? names[0]!;
  if (!config.agents[chosen]) {
    throw new UsageError(`No agent named "${chosen}" in the config; it has: ${names.join(', ')}.`);
  }
  return chosen;
}

/** The task queue of a project: the config's, else one named after its folder and path. */
export function taskQueueOf(loaded: LoadedConfig): string {
  if (loaded.config.temporal?.taskQueue) return loaded.config.temporal.taskQueue;
  const hash = createHash('sha256').update(loaded.path).digest('hex').slice(0, 8);
  const folder = basename(dirname(loaded.path)).replace(/[^\w.-]+/g, '-');
  return `toolkit-agent-${folder}-${hash}`;
}

/** The credential file used when the config names no store. */
export function defaultCredentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'credentials.json');
}

/** The config's credential store, or the default file store. */
export function credentialStoreOf(config: ToolkitAgentConfig | undefined): CredentialStore {
  return config?.credentialStore ?? new FileCredentialStore({ path: defaultCredentialsPath() });
}

/** The config when there is one (commands like `creds` work without it). */
export async function loadOptionalConfig(configPath?: string): Promise<LoadedConfig | undefined> {
  const path = findConfigFile(configPath);
  return path ? loadConfig(path) : undefined;
}

/** The config's credential store, or the default file store (no config needed). */
export async function credentialStoreFor(configPath?: string): Promise<CredentialStore> {
  return credentialStoreOf((await loadOptionalConfig(configPath))?.config);
}
