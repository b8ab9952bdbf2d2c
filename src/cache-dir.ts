import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The one cache of a user, for what toolkit-agent downloads (the temporal CLI, the offline model):
 * `TOOLKIT_AGENT_CACHE_DIR`, else `$XDG_CACHE_HOME/toolkit-agent`, else `~/.cache/toolkit-agent`.
 * The same folder whatever the current directory, so nothing is fetched twice.
 */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TOOLKIT_AGENT_CACHE_DIR) return env.TOOLKIT_AGENT_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'toolkit-agent');
}

/**
 * Where to look for something already fetched: the user cache, then the project cache earlier
 * versions filled (`node_modules/.cache/toolkit-agent` in the current directory; read, never
 * written). Only the user cache when `TOOLKIT_AGENT_CACHE_DIR` is set.
 */
export function cacheDirsToSearch(env: NodeJS.ProcessEnv = process.env): string[] {
  const user = userCacheDir(env);
  if (env.TOOLKIT_AGENT_CACHE_DIR) return [user];
  return [user, join(process.cwd(), 'node_modules', '.cache', 'toolkit-agent')];
}
