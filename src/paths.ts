import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { privateDirSync } from './fs/private-file.ts';

/** Where toolkit-agent keeps its own data (the default memory store): `TOOLKIT_AGENT_HOME` or `~/.toolkit-agent`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.TOOLKIT_AGENT_HOME ?? join(homedir(), '.toolkit-agent');
}

export function defaultMemoryPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'memory.sqlite');
}

/**
 * When `path` is inside toolkit-agent's own folder, makes that folder private to its owner (0700),
 * creating it if need be: it holds whole conversations, the server's database and credentials.
 */
export function privateDataDirFor(path: string, env: NodeJS.ProcessEnv = process.env): void {
  const home = resolve(dataDir(env));
  const dir = resolve(dirname(path));
  if (dir === home || dir.startsWith(home + sep)) privateDirSync(home);
}
