import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where toolkit-agent keeps its own data (the default memory store): `TOOLKIT_AGENT_HOME` or `~/.toolkit-agent`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.TOOLKIT_AGENT_HOME ?? join(homedir(), '.toolkit-agent');
}

export function defaultMemoryPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'memory.sqlite');
}
