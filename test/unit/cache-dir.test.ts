import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDirsToSearch, userCacheDir } from '../../src/cache-dir.ts';

describe('the one cache of a user (temporal CLI, offline model)', () => {
  it('is ~/.cache/toolkit-agent whatever the current folder; XDG_CACHE_HOME and TOOLKIT_AGENT_CACHE_DIR move it', () => {
    expect(userCacheDir({})).toBe(join(homedir(), '.cache', 'toolkit-agent'));
    expect(userCacheDir({ XDG_CACHE_HOME: '/var/cache/me' })).toBe('/var/cache/me/toolkit-agent');
    expect(userCacheDir({ XDG_CACHE_HOME: '/x', TOOLKIT_AGENT_CACHE_DIR: '/srv/ta' })).toBe('/srv/ta');
  });

  it("finds what earlier versions put in the project's node_modules/.cache, unless the cache is set", () => {
    expect(cacheDirsToSearch({})).toEqual([
      join(homedir(), '.cache', 'toolkit-agent'),
      join(process.cwd(), 'node_modules', '.cache', 'toolkit-agent'),
    ]);
    expect(cacheDirsToSearch({ TOOLKIT_AGENT_CACHE_DIR: '/srv/ta' })).toEqual(['/srv/ta']);
  });
});
