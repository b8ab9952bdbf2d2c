import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import { defaultMemoryPath } from '../../src/paths.ts';

const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe("toolkit-agent's own files", () => {
  let dir: string;
  const saved = process.env.TOOLKIT_AGENT_HOME;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'private-files-'));
    process.env.TOOLKIT_AGENT_HOME = join(dir, 'home');
  });
  afterEach(async () => {
    if (saved === undefined) delete process.env.TOOLKIT_AGENT_HOME;
    else process.env.TOOLKIT_AGENT_HOME = saved;
    await rm(dir, { recursive: true, force: true });
  });

  it('the default memory store: its folder 0700, the database and its WAL files 0600', async () => {
    const store = new SqliteMemoryStore({ path: defaultMemoryPath() });
    await store.append('c', 0, [{ role: 'user', content: 'a whole conversation' }]);
    expect(await mode(join(dir, 'home'))).toBe('700');
    expect(await mode(join(dir, 'home', 'memory.sqlite'))).toBe('600');
    expect(await mode(join(dir, 'home', 'memory.sqlite-wal'))).toBe('600');
    await store.close();
  });

  it('tightens a folder and a database an older version left readable by others', async () => {
    const home = join(dir, 'home');
    await mkdir(home, { mode: 0o755 });
    await chmod(home, 0o755);
    await writeFile(join(home, 'memory.sqlite'), '', { mode: 0o644 });
    await chmod(join(home, 'memory.sqlite'), 0o644);
    await new SqliteMemoryStore({ path: defaultMemoryPath() }).close();
    expect(await mode(home)).toBe('700');
    expect(await mode(join(home, 'memory.sqlite'))).toBe('600');
  });

  it("a store elsewhere: the file is private, the application's folder is left as it is", async () => {
    const folder = join(dir, 'app-data');
    await mkdir(folder, { mode: 0o755 });
    await chmod(folder, 0o755);
    await new SqliteMemoryStore({ path: join(folder, 'memory.sqlite') }).close();
    expect(await mode(folder)).toBe('755');
    expect(await mode(join(folder, 'memory.sqlite'))).toBe('600');
  });
});
