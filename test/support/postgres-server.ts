import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/embedded/free-port.ts';

const run = promisify(execFile);

export type PostgresServer =
  | {
      url: string;
      stop(): Promise<void>;
      /** A shell command that stops the server and removes its folder, for a watchdog to run (see orphan-watchdog.ts). */
      orphanCleanup: string;
    }
  | { skipped: string };

/**
 * A throwaway PostgreSQL server from the machine's packages (Debian: `apt-get install postgresql`),
 * on 127.0.0.1 at a free port, data in a temporary folder, trust auth. Run as the `postgres` user
 * when we are root (initdb refuses root). Answers `skipped` with the reason when it cannot start.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = await findBinDir();
  if (!bin) return { skipped: 'PostgreSQL is not installed (Debian: apt-get install postgresql).' };
  const dir = await mkdtemp(join(tmpdir(), 'toolkit-pg-'));
  const owner = process.getuid?.() === 0 ? await userIds('postgres') : undefined;
  if (process.getuid?.() === 0 && !owner)
    return { skipped: 'Running as root and there is no postgres user to run PostgreSQL as.' };
  if (owner) await chown(dir, owner.uid, owner.gid);
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const data = join(dir, 'data');
  const port = await freePort();
  try {
    await run(join(bin, 'initdb'), ['-D', data, '-U', 'toolkit', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
      ...as,
      cwd: dir,
    });
    await run(
      join(bin, 'pg_ctl'),
      ['start', '-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -h 127.0.0.1 -F`],
      {
        ...as,
        cwd: dir,
      },
    );
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    return { skipped: `PostgreSQL did not start: ${(error as Error).message.split('\n')[0]}` };
  }
  const pidFile = join(data, 'postmaster.pid');
  return {
    url: `postgres://toolkit@127.0.0.1:${port}/postgres`,
    // SIGINT is PostgreSQL's fast shutdown; the postmaster's pid is the first line of its pid file.
    orphanCleanup:
      `if [ -f '${pidFile}' ]; then kill -INT "$(head -n 1 '${pidFile}')" 2>/dev/null; ` +
      `for i in 1 2 3 4 5 6 7 8 9 10; do [ -f '${pidFile}' ] || break; sleep 1; done; fi; rm -rf '${dir}'`,
    async stop() {
      await run(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'fast', '-w'], { ...as, cwd: dir }).catch(
        () => undefined,
      );
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function findBinDir(): Promise<string | undefined> {
  try {
    const versions = (await readdir('/usr/lib/postgresql')).sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join('/usr/lib/postgresql', versions[0], 'bin');
  } catch {
    // not Debian's layout
  }
  try {
    return (await run('pg_config', ['--bindir'])).stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

async function userIds(name: string): Promise<{ uid: number; gid: number } | undefined> {
  const line = (await readFile('/etc/passwd', 'utf8')).split('\n').find((l) => l.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
